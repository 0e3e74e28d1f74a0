#include <cstdio>
#include "mesh/load.hpp"
using namespace kempe;
int main(int argc,char**argv){
  Mesh mesh = load_mesh(argv[1]);
  std::vector<long> cb{0}; for(long f=1; f<(long)mesh.face_color.size(); ++f) if(mesh.face_color[f]!=mesh.face_color[f-1]) cb.push_back(f); cb.push_back(mesh.face_color.size());
  std::printf("faces %zu elements %d\n", mesh.face_color.size(), (int)mesh.num_elements());
  for (size_t c=0;c+1<cb.size();++c){
    long b=cb[c], e=cb[c+1], blocks=0, L=0,R=0,ul=0;
    for(long f=b; f+8<=e; f+=8){ ++blocks; bool l1=true,r1=true,u=true;
      for(int l=1;l<8;++l){ l1&=mesh.face_left[f+l]==mesh.face_left[f]+l; r1&=mesh.face_right[f+l]==mesh.face_right[f]+l; u&=mesh.face_left_local[f+l]==mesh.face_left_local[f];}
      L+=l1; R+=r1; ul+=u;}
    std::printf("color %zu blocks %ld left runs %ld right runs %ld uniform left_local %ld\n",c,blocks,L,R,ul);
  }
}
