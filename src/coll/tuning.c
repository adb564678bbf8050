/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "coll/tuning.h"
