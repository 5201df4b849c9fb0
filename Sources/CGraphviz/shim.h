// The C surface RetainGraphRendering uses: libgvc (layout and rendering) and cgraph (graphs, errors).
#ifndef RETAIN_GRAPH_CGRAPHVIZ_SHIM_H
#define RETAIN_GRAPH_CGRAPHVIZ_SHIM_H

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

// cgraph's DOT lexer keeps its state between parses: after a text that ends with a newline, the
// next parse starts by reading that newline, and reports its errors one line too far down.
// aglexbad() flushes the lexer's buffer. It is exported by libcgraph but not declared in its headers,
// hence the weak declaration: where it is missing, nothing is flushed.
extern void aglexbad(void) __attribute__((weak));

/// Forgets anything left in cgraph's lexer from the previous parse and restarts line numbering.
static inline void cgraphviz_reset_lexer(void) {
  if (aglexbad) aglexbad();
  agreadline(1);
}

#endif
