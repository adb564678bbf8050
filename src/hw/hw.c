/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "hw/hw.h"
