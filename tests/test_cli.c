/* tests/test_cli.c: placeholder, being written */
#include <criterion/criterion.h>
