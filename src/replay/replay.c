/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "replay/replay.h"
