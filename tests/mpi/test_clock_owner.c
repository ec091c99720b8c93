/*
 * test_clock_owner.c - which clock reads stay on host time under
 * --virtual-time (mpi/clock_owner.c): the objects of this host's Open MPI
 * 4.1 install and its helpers (as the loader names them in a rank) are the
 * runtime's; user libraries and the language runtimes a program times
 * itself through are the program's.  The wall clocks, and the arithmetic of
 * a clock's value.
 */
#include "clock_owner.h"

#include <check.h>
#include <stdlib.h>

START_TEST(runtime_objects)
{
    /* the shared objects of a rank under `torusemu run` on this host
     * (/proc/PID/maps), each of which may read a clock */
    static const char *const runtime[] = {
        "/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4",
        "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2",
        "/usr/lib/x86_64-linux-gnu/libopen-rte.so.40.30.2",
        "/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_mpifh.so",
        "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so",
        "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pmix_ext3x.so",
        "/usr/lib/x86_64-linux-gnu/libmca_common_sm.so.40.30.0",
        "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2.6.2",
        "/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/pmix_mca_pcompress_zlib.so",
        "/usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7.0.1",
        "/usr/lib/x86_64-linux-gnu/libevent_pthreads-2.1.so.7.0.1",
        "/usr/lib/x86_64-linux-gnu/libhwloc.so.15.6.1",
        "/usr/lib/x86_64-linux-gnu/libudev.so.1.7.5",
        "/usr/lib/x86_64-linux-gnu/libmunge.so.2.0.0",
        "/usr/lib/x86_64-linux-gnu/libucp.so.0",
        "/opt/papi/lib/libpapi.so.7.0.0.0",
        "/work/_build/.libs/libtorusemu_mpi.so.0.0.0",
        "/work/_build/.libs/libtorusemu.so.0",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/ld-linux-x86-64.so.2",
        "libpthread.so.0",
    };
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++) {
        ck_assert_msg(tmpi_clock_runtime_object(runtime[i]) == 1, "%s", runtime[i]);
    }
}
END_TEST

START_TEST(program_objects)
{
    static const char *const program[] = {
        "/usr/lib/x86_64-linux-gnu/libgfortran.so.5", /* SYSTEM_CLOCK      */
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",   /* std::chrono       */
        "/usr/lib/x86_64-linux-gnu/libgomp.so.1",     /* omp_get_wtime     */
        "/home/u/app/lib/libsolver.so",               /* a user library    */
        "/home/u/bin/network_test",                   /* an executable     */
        "libmylib.so",
        "/opt/ld/libmy.so", /* "ld" as a directory, not the loader */
        "",                 /* the main executable's loader name */
        NULL,
    };
    for (size_t i = 0; i < sizeof program / sizeof program[0]; i++) {
        ck_assert_msg(tmpi_clock_runtime_object(program[i]) == 0, "%s",
                      program[i] ? program[i] : "(null)");
    }
}
END_TEST

START_TEST(wall_clocks)
{
    static const clockid_t wall[] = {CLOCK_REALTIME,
                                     CLOCK_MONOTONIC,
                                     CLOCK_MONOTONIC_RAW,
                                     CLOCK_REALTIME_COARSE,
                                     CLOCK_MONOTONIC_COARSE,
                                     CLOCK_BOOTTIME,
                                     CLOCK_TAI};
    int seen[TMPI_WALL_CLOCKS] = {0};
    for (size_t i = 0; i < sizeof wall / sizeof wall[0]; i++) {
        int k = tmpi_wall_clock_index(wall[i]);
        ck_assert_int_ge(k, 0);
        ck_assert_int_lt(k, TMPI_WALL_CLOCKS);
        ck_assert_int_eq(seen[k]++, 0); /* one index each */
        ck_assert_int_eq(tmpi_wall_clock_id(k), wall[i]);
    }
    /* vt_clocks.c takes gettimeofday, time and timespec_get from index 0 */
    ck_assert_int_eq(tmpi_wall_clock_index(CLOCK_REALTIME), 0);
    /* CPU time is never changed (vtime.c measures computation with it) */
    ck_assert_int_eq(tmpi_wall_clock_index(CLOCK_PROCESS_CPUTIME_ID), -1);
    ck_assert_int_eq(tmpi_wall_clock_index(CLOCK_THREAD_CPUTIME_ID), -1);
    ck_assert_int_eq(tmpi_wall_clock_index(CLOCK_REALTIME_ALARM), -1);
    ck_assert_int_eq(tmpi_wall_clock_index(CLOCK_BOOTTIME_ALARM), -1);
    ck_assert_int_eq(tmpi_wall_clock_index((clockid_t)-6), -1); /* a thread's CPU clock */
}
END_TEST

START_TEST(arithmetic)
{
    /* the base drops the host's sub-microsecond part */
    ck_assert_int_eq(tmpi_clock_base_ns(1700000000123456789ll), 1700000000123456000ll);
    ck_assert_int_eq(tmpi_clock_base_ns(5000), 5000);
    /* virtual picoseconds rounded down to nanoseconds */
    ck_assert_int_eq(tmpi_program_ns(1000, 0), 1000);
    ck_assert_int_eq(tmpi_program_ns(1000, 999), 1000);
    ck_assert_int_eq(tmpi_program_ns(1000, 236400), 1236);
    ck_assert_int_eq(tmpi_program_ns(1000, 11820000), 12820);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clock_owner");
    TCase *t = tcase_create("core");
    tcase_add_test(t, runtime_objects);
    tcase_add_test(t, program_objects);
    tcase_add_test(t, wall_clocks);
    tcase_add_test(t, arithmetic);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
