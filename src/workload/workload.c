/* SPDX-License-Identifier: MIT */
/* placeholder: to be implemented */
#include "workload/workload.h"
