! vt_wtime.f90 - one 8-byte ping-pong between ranks 0 and 1 timed with
! MPI_WTIME from Fortran (use mpi), for `torusemu run --virtual-time`
! (tests/mpi/vtime.sh): rank 0 prints the round trip in picoseconds and
! MPI_WTICK, and the same round trip as SYSTEM_CLOCK counted it (libgfortran
! reads clock_gettime: the program's own clock) with its count rate.
program vt_wtime
  use mpi
  implicit none
  integer :: rank, ierr, stat(MPI_STATUS_SIZE)
  double precision :: buf, t0, t1
  integer(8) :: c0, c1, rate
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  buf = 1.0d0
  t0 = MPI_WTIME()
  call SYSTEM_CLOCK(c0, rate)
  if (rank == 0) then
     call MPI_SEND(buf, 1, MPI_DOUBLE_PRECISION, 1, 3, MPI_COMM_WORLD, ierr)
     call MPI_RECV(buf, 1, MPI_DOUBLE_PRECISION, 1, 3, MPI_COMM_WORLD, stat, ierr)
  else if (rank == 1) then
     call MPI_RECV(buf, 1, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, stat, ierr)
     call MPI_SEND(buf, 1, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, ierr)
  end if
  call SYSTEM_CLOCK(c1)
  t1 = MPI_WTIME()
  if (rank == 0) then
     print '(a,i0,a)', 'fortran round trip ', nint((t1 - t0) * 1d12, 8), ' ps'
     print '(a,es8.1)', 'fortran tick', MPI_WTICK()
     print '(a,i0,a,i0,a)', 'fortran system_clock ', c1 - c0, ' counts at ', rate, ' per second'
  end if
  call MPI_FINALIZE(ierr)
end program vt_wtime
