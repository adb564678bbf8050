/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "core/units.h"
