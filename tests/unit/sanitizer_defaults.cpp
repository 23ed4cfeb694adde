// Sanitizer settings of the unit tests built with -DIOK_SANITIZE=ON
// (build-asan, run by scripts/iok test), compiled into the test program so
// they hold however it is started (ctest, by hand, under mpiexec).  Empty in
// a normal build.
#if defined(__SANITIZE_ADDRESS__)

extern "C" {

// Leaks are errors; a use after return is caught too.
const char* __asan_default_options() { return "detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1"; }

// Quiet about what the suppressions below matched.
const char* __lsan_default_options() { return "print_suppressions=0"; }

// Allocations made inside the MPI stack only: OpenMPI and PMIx keep their
// start-up tables (op selection, communicator and PMIx pointer arrays,
// ~18 KB in 28 blocks) until exit without freeing them; a plain
// MPI_Init/MPI_File_open/MPI_Finalize program shows exactly these.  A leak
// of ours whose stack passes through these libraries (a communicator or
// MPI_Info never freed) is hidden too.  ADIOS2's performance-timer stubs
// keep the timer names they make for every engine (2.7 KB in 10 blocks when
// a BP map is read; unit.MapFormats.*).
const char* __lsan_default_suppressions() {
    return "leak:libmpi.so\n"
           "leak:libpmix.so\n"
           "leak:libopen-pal.so\n"
           "leak:libadios2_mpi_perfstubs.so\n";
}

// Undefined behaviour stops the test (the build also sets
// -fno-sanitize-recover=undefined) with the stack that led there.
const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

}  // extern "C"

#endif
