/* A PMPI shim for the negative test of `iokernels replay --calls recorded`
 * (LD_PRELOAD): the first MPI_File_close of a file whose name contains
 * $IOK_CORRUPT_MATCH flips byte $IOK_CORRUPT_AT of that file (rank 0 of
 * MPI_COMM_WORLD, after the close; then a barrier), so that the replay's
 * read-back that follows reads one wrong byte.  Without the variables it
 * only forwards. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_File target = MPI_FILE_NULL;
static char path[4096];
static int done;

int MPI_File_open(MPI_Comm comm, const char* name, int amode, MPI_Info info, MPI_File* fh) {
    int rc = PMPI_File_open(comm, name, amode, info, fh);
    const char* m = getenv("IOK_CORRUPT_MATCH");
    if (rc == MPI_SUCCESS && !done && target == MPI_FILE_NULL && m && *m && strstr(name, m)) {
        target = *fh;
        snprintf(path, sizeof path, "%s", name);
    }
    return rc;
}

int MPI_File_close(MPI_File* fh) {
    int mine = target != MPI_FILE_NULL && *fh == target;
    int rc = PMPI_File_close(fh);
    if (mine) {
        int rank;
        target = MPI_FILE_NULL;
        done = 1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) {
            FILE* f = fopen(path, "r+b");
            long at = atol(getenv("IOK_CORRUPT_AT") ? getenv("IOK_CORRUPT_AT") : "0");
            int c;
            if (!f || fseek(f, at, SEEK_SET) != 0 || (c = fgetc(f)) == EOF || fseek(f, at, SEEK_SET) != 0 ||
                fputc(c ^ 0x55, f) == EOF || fclose(f) != 0) {
                fprintf(stderr, "corrupt_on_close: cannot flip byte %ld of %s\n", at, path);
                PMPI_Abort(MPI_COMM_WORLD, 3);
            }
            fprintf(stderr, "corrupt_on_close: flipped byte %ld of %s\n", at, path);
        }
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    return rc;
}
