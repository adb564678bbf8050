/* SPDX-License-Identifier: MIT */
/* placeholder */
int
main(void)
{
    return 77;
}
