// The C surface RetainGraphRendering uses: libgvc (layout and rendering) and cgraph (graphs, errors).
#ifndef RETAIN_GRAPH_CGRAPHVIZ_SHIM_H
#define RETAIN_GRAPH_CGRAPHVIZ_SHIM_H

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#endif
