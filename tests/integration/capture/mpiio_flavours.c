/* A small MPI program for the capture tests: every MPI-IO access flavour
 * the capture library wraps, on one file, with a strided file view.
 * Usage: mpiio_flavours FILE [none]
 *   none: touch no MPI-IO at all (the trace must come out empty).
 * Layout (P ranks, B = 64 bytes, all offsets in bytes):
 *   [0, P*B*4)          vector view: rank r owns block r of each of 4 rounds (write_all)
 *   then P*B            write_at (independent), rank r at its block
 *   then P*B            iwrite_at_all + wait
 *   then P*B            split collective write_at_all_begin/end
 *   then P*B            write_ordered (rank order)
 *   then the whole file is read back with read_at_all by every rank, checked.
 * FILE.sub: the first pattern again through a subarray view from a
 * noncontiguous memory type. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B 64

static void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "mpiio_flavours: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc > 2 && strcmp(argv[2], "none") == 0) {
        int x = rank, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    check(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open");
    MPI_Info_free(&info);
    char buf[4 * B];
    for (int i = 0; i < 4 * B; ++i) buf[i] = (char)(rank + i);

    /* 4 rounds of B bytes per rank, strided by P*B: a vector filetype */
    MPI_Datatype ft;
    MPI_Type_vector(4, B, P * B, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    check(MPI_File_set_view(fh, (MPI_Offset)rank * B, MPI_BYTE, ft, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, buf, 4 * B, MPI_BYTE, MPI_STATUS_IGNORE), "write_all");
    MPI_Type_free(&ft);
    check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view");

    MPI_Offset base = (MPI_Offset)P * B * 4;
    check(MPI_File_write_at(fh, base + (MPI_Offset)rank * B, buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
    base += (MPI_Offset)P * B;
    MPI_Request req;
    check(MPI_File_iwrite_at_all(fh, base + (MPI_Offset)rank * B, buf, B, MPI_BYTE, &req), "iwrite_at_all");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    base += (MPI_Offset)P * B;
    check(MPI_File_write_at_all_begin(fh, base + (MPI_Offset)rank * B, buf, B, MPI_BYTE), "write_at_all_begin");
    check(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE), "write_at_all_end");
    base += (MPI_Offset)P * B;
    check(MPI_File_seek_shared(fh, base, MPI_SEEK_SET), "seek_shared");
    check(MPI_File_write_ordered(fh, buf, B, MPI_BYTE, MPI_STATUS_IGNORE), "write_ordered");
    base += (MPI_Offset)P * B;

    /* read everything back on every rank */
    char* all = malloc((size_t)base);
    check(MPI_File_read_at_all(fh, 0, all, (int)base, MPI_BYTE, MPI_STATUS_IGNORE), "read_at_all");
    for (int r = 0; r < P; ++r)
        for (int k = 0; k < 4; ++k)
            if (all[(size_t)k * P * B + (size_t)r * B] != (char)(r + k * B)) {
                fprintf(stderr, "mpiio_flavours: wrong data at round %d rank %d\n", k, r);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    free(all);
    check(MPI_File_close(&fh), "close");

    /* FILE.sub: the same block pattern through a 2-D subarray view, written
     * from a noncontiguous memory type (every other block of a buffer) */
    char sub[1024];
    snprintf(sub, sizeof sub, "%s.sub", argv[1]);
    check(MPI_File_open(MPI_COMM_WORLD, sub, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open sub");
    int sizes[2] = {4, P * B}, subsizes[2] = {4, B}, starts[2] = {0, rank * B};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    MPI_Datatype mt;
    MPI_Type_vector(4, B, 2 * B, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    char* mem = calloc(8 * B, 1);
    check(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL), "set_view sub");
    check(MPI_File_write_all(fh, mem, 1, mt, MPI_STATUS_IGNORE), "write_all sub");
    free(mem);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    check(MPI_File_close(&fh), "close sub");
    if (rank == 0) printf("mpiio_flavours: %lld bytes written and checked\n", (long long)base);
    MPI_Finalize();
    return 0;
}
