/* rad.c - one CPU's cost of an LSD sort in cache by 8-bit digits (three
   passes) against 12-bit digits (two passes), over 256 arrays of N random
   24-bit keys (the bits under a top digit of random u32 keys), ns a key,
   three rounds; every result checked in order. Not part of the library:
     gcc -O2 rad.c -o rad && ./rad 65536 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void lsd8(uint32_t *a, uint32_t *b, size_t n){ size_t c[3][256]; memset(c,0,sizeof c);
  for(size_t i=0;i<n;i++){uint32_t x=a[i]; c[0][x&255]++; c[1][(x>>8)&255]++; c[2][(x>>16)&255]++;}
  uint32_t *s=a,*d=b;
  for(int p=0;p<3;p++){ size_t at[256],sum=0; for(int u=0;u<256;u++){at[u]=sum;sum+=c[p][u];} int sh=8*p;
    for(size_t i=0;i<n;i++){uint32_t x=s[i]; d[at[(x>>sh)&255]++]=x;} uint32_t*t=s;s=d;d=t;} }
static void lsd12(uint32_t *a, uint32_t *b, size_t n){ static uint32_t c[2][4096]; memset(c,0,sizeof c);
  for(size_t i=0;i<n;i++){uint32_t x=a[i]; c[0][x&4095]++; c[1][(x>>12)&4095]++;}
  uint32_t *s=a,*d=b;
  for(int p=0;p<2;p++){ static uint32_t at[4096]; uint32_t sum=0; for(int u=0;u<4096;u++){at[u]=sum;sum+=c[p][u];} int sh=12*p;
    for(size_t i=0;i<n;i++){uint32_t x=s[i]; d[at[(x>>sh)&4095]++]=x;} uint32_t*t=s;s=d;d=t;} }
static void lsd11(uint32_t *a, uint32_t *b, size_t n){ static uint32_t c[3][2048]; memset(c,0,sizeof c);
  for(size_t i=0;i<n;i++){uint32_t x=a[i]; c[0][x&2047]++; c[1][(x>>11)&2047]++; c[2][(x>>22)&3]++;}
  uint32_t *s=a,*d=b;
  for(int p=0;p<2;p++){ static uint32_t at[2048]; uint32_t sum=0; for(int u=0;u<2048;u++){at[u]=sum;sum+=c[p][u];} int sh=11*p;
    for(size_t i=0;i<n;i++){uint32_t x=s[i]; d[at[(x>>sh)&2047]++]=x;} uint32_t*t=s;s=d;d=t;} }
int main(int argc,char**argv){ size_t n=argc>1?strtoul(argv[1],0,0):65536; int reps=256;
  uint32_t *src=malloc(n*4*reps),*a=malloc(n*4),*b=malloc(n*4); uint64_t s=7;
  for(size_t i=0;i<n*reps;i++){s=s*6364136223846793005ull+1442695040888963407ull; src[i]=(uint32_t)(s>>40);} /* 24-bit */
  for(int round=0;round<3;round++){ double t8=0,t12=0;
    for(int r=0;r<reps;r++){ memcpy(a,src+r*n,n*4); double t0=cpu(); lsd8(a,b,n); t8+=cpu()-t0; 
      for(size_t i=1;i<n;i++) if(b[i-1]>b[i]){puts("bad8");return 1;}
      memcpy(a,src+r*n,n*4); t0=cpu(); lsd12(a,b,n); t12+=cpu()-t0; 
      for(size_t i=1;i<n;i++) if(a[i-1]>a[i]){puts("bad12");return 1;} }
    printf("n=%zu: 3x8 %.2f ns/key, 2x12 %.2f ns/key\n",n,t8*1e6/n/reps,t12*1e6/n/reps);}
  return 0; }
