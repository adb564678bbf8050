/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "topo/topo.h"
