/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "net/net.h"
