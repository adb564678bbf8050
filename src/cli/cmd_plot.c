/* SPDX-License-Identifier: MIT */
/* weft plot: placeholder while it is written. */
#include "config.h"

#include "cli/cli.h"

int
weft_cmd_plot(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return weft_cli_usage_error("plot", "not yet");
}
