/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "coll/coll.h"
