/* A small program for perf record: two threads and a forked child spin
   through a few nested calls, so that cpu-clock samples carry pids, tids
   and frame-pointer callchains of several depths. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long x) {
  for (int i = 0; i < 2000; i++)
    x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x;
}

__attribute__((noinline)) static unsigned long middle(unsigned long x) {
  return leaf(x) ^ leaf(x + 1);
}

__attribute__((noinline)) static unsigned long top(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += (i & 1) ? middle(i) : leaf(i);
  return s;
}

static void *worker(void *arg) {
  sink += top((unsigned long)arg);
  return NULL;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
  pid_t child = fork();
  if (child == 0) {
    sink += top(n);
    _exit(0);
  }
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)n);
  sink += top(n / 2);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  waitpid(child, NULL, 0);
  printf("%lu\n", sink & 1);
  return 0;
}
