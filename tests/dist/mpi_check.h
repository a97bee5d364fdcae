/* Collective checks for the tests under mpirun: a rank never leaves a test early while the
 * others wait in MPI, and every rank fails together. Include after test_util.h and mpi.h. */
#ifndef STENC_TEST_MPI_CHECK_H
#define STENC_TEST_MPI_CHECK_H

/* Fail the test on every rank when `ok` is false on any; the failing ranks say why. */
static void check_all(int ok, const char *what) {
    int all = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) print_error("rank %d: %s\n", rank, what);
    assert_int_equal(all, 1);
}

/* Every rank got `expected`, and so the same status. */
static void check_status_all(stenc_status got, stenc_status expected, const char *what) {
    char msg[700];
    snprintf(msg, sizeof msg, "%s: status %s, expected %s (%s)", what, stenc_status_string(got),
             stenc_status_string(expected), stenc_last_error());
    check_all(got == expected, msg);
}

#endif /* STENC_TEST_MPI_CHECK_H */
