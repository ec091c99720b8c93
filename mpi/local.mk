# mpi/local.mk - PMPI interposition library, launcher support, MPI examples
# and MPI tests (issue: MPI traffic capture and the launcher).
