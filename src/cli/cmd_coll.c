/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "cli/cli.h"
