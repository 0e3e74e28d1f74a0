#include <chrono>
#include <cstdio>
#include <vector>
#include <omp.h>
int main(){ size_t n=50'000'000; std::vector<double> a(n,1.0),b(n,2.0),c(n,0);
 for(int r=0;r<5;r++){ auto t=std::chrono::steady_clock::now();
 #pragma omp parallel for
 for(size_t i=0;i<n;i++) c[i]=a[i]+3*b[i];
 double s=std::chrono::duration<double>(std::chrono::steady_clock::now()-t).count();
 printf("triad %.1f GB/s\n", 3*8*n/s/1e9);}
 std::vector<int> idx(n); for(size_t i=0;i<n;i++) idx[i]=(i*2654435761u)%n;
 for(int r=0;r<3;r++){ auto t=std::chrono::steady_clock::now(); double s0=0;
 #pragma omp parallel for reduction(+:s0)
 for(size_t i=0;i<n;i++) s0+=a[idx[i]];
 double s=std::chrono::duration<double>(std::chrono::steady_clock::now()-t).count();
 printf("random gather %.1f M/s %g\n", n/s/1e6, s0);}
}
