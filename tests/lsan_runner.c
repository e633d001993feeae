/*
 * lsan_runner.c — in the sanitized test runner, LeakSanitizer checks each
 * test's process but not Criterion's runner process.
 *
 * The runner leaks a block of Criterion's own (a 48-byte calloc, no frame
 * of ours).  A suppression by module ("leak:libcriterion.so") hid it, but
 * also every leak of a test, since every allocation a test makes has
 * Criterion's frames below it: only leaks whose stacks stopped short
 * (inside jansson, built without frame pointers) got through.  A test's
 * process has a current test; the runner's has none.
 */
#include <criterion/criterion.h>

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer's hook: nonzero turns the exit-time check off. */
int __lsan_is_turned_off(void);

int __lsan_is_turned_off(void)
{
    return criterion_current_test == NULL;
}
#endif
