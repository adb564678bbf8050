/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "topo/analysis.h"
