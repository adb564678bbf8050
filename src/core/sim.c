/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "core/sim.h"
