/* SPDX-License-Identifier: MIT */
/* Placeholder: replaced by the study tests. */
int
main(void)
{
    return 77;
}
