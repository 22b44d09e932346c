/* One MPI_Allreduce timed in SMPI: prints max over ranks of the end time minus max of the start time. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long bytes = atol(argv[1]);
  float* in = SMPI_SHARED_MALLOC(bytes);
  float* out = SMPI_SHARED_MALLOC(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  MPI_Allreduce(in, out, (int)(bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double end = MPI_Wtime();
  double first_start = 0, last_end = 0;
  MPI_Reduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.12e\n", last_end - first_start);
  SMPI_SHARED_FREE(in);
  SMPI_SHARED_FREE(out);
  MPI_Finalize();
  return 0;
}
