! gather_ring_f - Fortran twin of examples/gather_ring.c: the gathering
! library's Fortran bindings around a ring exchange of 65536 bytes
! (tests/mpi/gather.sh compares its CSV with the C program's and the store).
!   gather_ring_f TABLE CSV
program gather_ring_f
    use mpi
    implicit none
    integer, parameter :: nbytes = 65536
    character(len=1), allocatable :: sbuf(:), rbuf(:)
    character(len=512) :: table, csv
    integer :: rank, nproc, ierr, req(2)
    integer :: stats(MPI_STATUS_SIZE, 2)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
    call get_command_argument(1, table)
    call get_command_argument(2, csv)
    allocate(sbuf(nbytes), rbuf(nbytes))
    sbuf = char(0)

    call tgather_start(MPI_COMM_WORLD, ierr)
    if (ierr /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    call MPI_Irecv(rbuf, nbytes, MPI_BYTE, mod(rank + nproc - 1, nproc), 0, &
                   MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(sbuf, nbytes, MPI_BYTE, mod(rank + 1, nproc), 0, &
                   MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, stats, ierr)
    call tgather_stop(ierr)
    if (ierr /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    call tgather_report(table, csv, ierr)
    if (ierr /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    call MPI_Finalize(ierr)
end program gather_ring_f
