/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "scenario/scenario.h"
