// Element renumbering and face reordering (see reorder.hpp).
