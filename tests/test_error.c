/*
 * test_error.c — formatting of errors and their exit statuses.
 */
#include <criterion/criterion.h>

#include "core/error.h"

Test(error, format_includes_every_known_part)
{
    wh_error e;
    char buf[256];
    wh_error_set(&e, WH_ERR_USER, "k.ptx", 12, 5, "unexpected '%s'", "foo");
    wh_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "k.ptx:12:5: unexpected 'foo'");
    wh_error_set(&e, WH_ERR_USER, "k.json", 0, 0, "expected a type");
    wh_error_set_path(&e, "$.params[1].type");
    wh_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "k.json: $.params[1].type: expected a type");
    wh_error_set(&e, WH_ERR_DEVICE, NULL, 0, 0, "no GPU");
    wh_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "no GPU");
    cr_expect_eq(wh_error_exit_status(&e), 2);
    wh_error_set(NULL, WH_ERR_USER, NULL, 0, 0, "dropped"); /* NULL is allowed */
}

Test(error, truncates_instead_of_overflowing)
{
    wh_error e;
    char small[8];
    wh_error_set(&e, WH_ERR_INTERNAL, "a-long-file-name.ptx", 1, 1, "message");
    wh_error_format(&e, small, sizeof small);
    cr_expect_eq(strlen(small), 7);
    cr_expect_eq(wh_error_exit_status(&e), 2);
}
