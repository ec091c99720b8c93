! fortran_mpi.F90 - the Fortran test program with mpif.h (-DUSE_MPIF_H) or
! `use mpi`: the same calls and data as ftwin.c, so its counter store must
! equal the C program's.  Each rank prints its processor name and the size
! of its node communicator.
program fortran_mpi
#ifndef USE_MPIF_H
  use mpi
#endif
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer :: r, n, ierr, i, j, k, so, ro, right, left, nsize, namelen, node, win
  integer :: a(0:299), b(0:299), s(0:63), t(0:511)
  integer :: sc(0:63), sd(0:63), rc(0:63), rd(0:63), req(4)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  right = mod(r + 1, n)
  left = mod(r + n - 1, n)
  do i = 0, 299
    a(i) = r * 1000 + i
  end do
  ! 1. blocking ring, 100 ints
  if (mod(r, 2) == 0) then
    call MPI_Send(a, 100, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(b, 100, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(b, 100, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(a, 100, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  ! 2. non-blocking to both neighbours, 50 ints
  call MPI_Irecv(b, 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Irecv(b(50), 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Isend(a, 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(3), ierr)
  call MPI_Isend(a(50), 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(4), ierr)
  call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
  ! 3. sendrecv, 30 ints
  call MPI_Sendrecv(a, 30, MPI_INTEGER, right, 3, b, 30, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  ! 3b. sendrecv_replace, 25 ints
  b(0:24) = a(0:24)
  call MPI_Sendrecv_replace(b, 25, MPI_INTEGER, right, 4, left, 4, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE, ierr)
  ! 4. bcast 200 ints from rank 1
  call MPI_Bcast(a, 200, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  ! 5. allreduce 300 ints
  call MPI_Allreduce(a, b, 300, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  ! 6. alltoall, 10 ints per peer
  do i = 0, 10 * n - 1
    t(i) = r * 1000 + i
  end do
  call MPI_Alltoall(t, 10, MPI_INTEGER, b, 10, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ! 7. alltoallv: j+1 ints to rank j
  so = 0
  ro = 0
  do j = 0, n - 1
    sc(j) = j + 1
    rc(j) = r + 1
    sd(j) = so
    rd(j) = ro
    so = so + sc(j)
    ro = ro + rc(j)
  end do
  call MPI_Alltoallv(t, sc, sd, MPI_INTEGER, b, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ! 8. reduce 64 ints to rank 0
  call MPI_Reduce(a, b, 64, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  ! 9. gather 5 ints to rank 2 mod n, allgather 7 ints
  call MPI_Gather(a, 5, MPI_INTEGER, t, 5, MPI_INTEGER, mod(2, n), MPI_COMM_WORLD, ierr)
  call MPI_Allgather(a, 7, MPI_INTEGER, t, 7, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ! 10. persistent sends of 20 ints, started twice
  call MPI_Send_init(a, 20, MPI_INTEGER, right, 10, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Recv_init(b, 20, MPI_INTEGER, left, 10, MPI_COMM_WORLD, req(2), ierr)
  do k = 1, 2
    call MPI_Startall(2, req, ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Request_free(req(1), ierr)
  call MPI_Request_free(req(2), ierr)
  ! 11. barrier
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! 12. one-sided: put 10 ints into the right neighbour, get 10 back
  winsize = 300 * 4
  call MPI_Win_create(a, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(t, 10, MPI_INTEGER, right, disp, 10, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 10
  call MPI_Get(s, 10, MPI_INTEGER, right, disp, 10, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  ! 13. in-place allreduce, 16 ints
  call MPI_Allreduce(MPI_IN_PLACE, a, 16, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  ! 14. identity
  call MPI_Get_processor_name(pname, namelen, ierr)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node, ierr)
  call MPI_Comm_size(node, nsize, ierr)
  write (*, '(A,I0,A,A,A,I0)') 'rank ', r, ' name ', pname(1:namelen), ' node-size ', nsize
  call MPI_Comm_free(node, ierr)
  call MPI_Finalize(ierr)
end program fortran_mpi
