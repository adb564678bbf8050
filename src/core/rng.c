/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "core/rng.h"
