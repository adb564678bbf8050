/* SPDX-License-Identifier: MIT */
/* placeholder test: skipped until written */
int main(void) { return 77; }
