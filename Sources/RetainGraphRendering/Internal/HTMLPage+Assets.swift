internal import RetainGraph
internal import RetainGraphFormats

// The page's style sheet and script, inline: the page loads nothing from anywhere. The drawing's
// highlights take their colours from the pictures' palette, and the script finds the drawing's
// nodes by the element names the drawing plan gives them.
extension HTMLPage {
  static let styleSheet = #"""
    :root { --accent: \#(DrawingPalette.standard.highlight); --mark: \#(DrawingPalette.standard.mark); --text: #1f2933; --muted: #52606d; --line: #d9e2ec; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--text); }
    header { position: sticky; top: 0; z-index: 1; background: #fff; border-bottom: 1px solid var(--line);
      padding: 0.5rem 1rem; }
    h1 { font-size: 1.05rem; margin: 0 0 0.35rem; }
    h2 { font-size: 0.95rem; margin: 1rem 0 0.4rem; }
    h3 { font-size: 0.9rem; margin: 0.4rem 0 0.2rem; }
    .tools { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; }
    #search { width: 16rem; padding: 0.2rem 0.4rem; }
    #search-count { color: var(--muted); }
    .zoom button { min-width: 2rem; margin-left: 0.15rem; }
    main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(18rem, 28rem); height: calc(100vh - 5.5rem); }
    #graph { overflow: auto; padding: 0.5rem; border-right: 1px solid var(--line); }
    #graph svg { display: block; }
    aside { overflow: auto; padding: 0 1rem 1rem; }
    ul, ol { padding-left: 1.2rem; margin: 0.2rem 0; }
    .trace { list-style: none; padding-left: 0; font-family: ui-monospace, Menlo, Consolas, monospace;
      white-space: pre; font-size: 12.5px; }
    .trace .hop { color: var(--muted); }
    .trace .target { font-weight: bold; }
    pre { font-size: 12.5px; background: #f5f7fa; padding: 0.5rem; overflow-x: auto; }
    .node-link { font: inherit; color: var(--accent); background: none; border: 0; padding: 0; cursor: pointer;
      text-decoration: underline; }
    .fixes li { margin: 0.15rem 0; }
    .mark .node-link { color: var(--mark); font-weight: bold; }
    .note { color: var(--muted); }
    g.node { cursor: pointer; }
    g.node.match > :is(path, polygon, ellipse), g.node.match > g > a > :is(path, polygon, ellipse) {
      stroke: var(--accent); stroke-width: 3px; }
    g.node.marked > :is(path, polygon, ellipse), g.node.marked > g > a > :is(path, polygon, ellipse) {
      stroke: var(--mark); stroke-width: 4px; stroke-dasharray: 6 3; }
    g.node.on-path > :is(path, polygon, ellipse), g.node.on-path > g > a > :is(path, polygon, ellipse) {
      stroke: var(--accent); stroke-width: 2.5px; }
    g.node.selected > :is(path, polygon, ellipse), g.node.selected > g > a > :is(path, polygon, ellipse) {
      stroke: #111; stroke-width: 4px; }
    g.edge.on-path > path { stroke: var(--accent); stroke-width: 3px; }
    g.edge.on-path > polygon { stroke: var(--accent); fill: var(--accent); }
    @media (max-width: 50rem) { main { display: block; height: auto; } #graph { border-right: 0; } }
    """#

  static let script = #"""
    (() => {
      'use strict';
      // nodes[i] = [name, full type name, holder id (-1: none), trace line of the reference from the holder]
      const data = JSON.parse(document.getElementById('graph-data').textContent);
      const nodes = data.nodes;
      const svg = document.querySelector('#graph svg');
      const drawn = new Map();
      const edges = [];
      if (svg) {
        for (const g of svg.querySelectorAll('g.node')) {
          const title = g.querySelector('title');
          const more = title && /^\#(DrawingPlan.collapsedNamePrefix)(\d+)$/.exec(title.textContent);
          if (more) {
            g.dataset.more = more[1];
            g.setAttribute('tabindex', '0');
            g.setAttribute('role', 'button');
            continue;
          }
          const match = title && /^\#(DrawingPlan.nodeNamePrefix)(\d+)$/.exec(title.textContent);
          if (!match) continue;
          const id = Number(match[1]);
          drawn.set(id, g);
          g.dataset.node = String(id);
          g.setAttribute('tabindex', '0');
          g.setAttribute('role', 'button');
        }
        for (const g of svg.querySelectorAll('g.edge')) {
          const title = g.querySelector('title');
          const match = title && /^\#(DrawingPlan.nodeNamePrefix)(\d+)->\#(DrawingPlan.nodeNamePrefix)(\d+)$/.exec(title.textContent);
          if (match) edges.push({ from: Number(match[1]), to: Number(match[2]), g });
        }
      }
      for (const id of data.marks) drawn.get(id)?.classList.add('marked');

      const pathList = document.getElementById('path');
      const hint = document.getElementById('path-hint');

      function clear(className) {
        for (const element of document.querySelectorAll('#graph .' + className)) element.classList.remove(className);
      }

      function line(text, className) {
        const item = document.createElement('li');
        item.className = className;
        item.textContent = text;
        return item;
      }

      // The references from the root to `id`, climbing from each node to the holder that first reached it.
      function select(id) {
        if (!(id >= 0 && id < nodes.length)) return;
        const chain = [];
        const seen = new Set();
        for (let current = id; current >= 0 && !seen.has(current); current = nodes[current][2]) {
          seen.add(current);
          chain.push(current);
        }
        chain.reverse();
        clear('selected');
        clear('on-path');
        pathList.replaceChildren();
        const reachable = chain[0] === data.root;
        chain.forEach((node, index) => {
          if (index > 0) pathList.append(line(nodes[node][3], 'hop'));
          pathList.append(line(nodes[node][0], index === chain.length - 1 ? 'node target' : 'node'));
          drawn.get(node)?.classList.add('on-path');
        });
        for (let index = 1; index < chain.length; index++) {
          const from = chain[index - 1];
          const to = chain[index];
          // The reference as drawn; a reference drawn against its direction (dir=back) otherwise.
          let drawnEdges = edges.filter((edge) => edge.from === from && edge.to === to);
          if (drawnEdges.length === 0) drawnEdges = edges.filter((edge) => edge.from === to && edge.to === from);
          for (const edge of drawnEdges) edge.g.classList.add('on-path');
        }
        const target = drawn.get(id);
        target?.classList.add('selected');
        let note = nodes[id][1];
        if (!reachable) note += ' (not reachable from the root)';
        if (!target) note += ' (not drawn: raise --max-nodes to draw it)';
        hint.textContent = note;
        pathList.dataset.node = String(id);
      }

      // A drawn node shows its path; a '+N more' node its holder's path and the nodes it first reaches
      // that are not drawn.
      function activate(g) {
        if (g.dataset.node) {
          select(Number(g.dataset.node));
        } else if (g.dataset.more) {
          const holder = Number(g.dataset.more);
          select(holder);
          const hidden = [];
          nodes.forEach((node, id) => {
            if (node[2] === holder && !drawn.has(id)) hidden.push(id);
          });
          list(hidden, `Not drawn, first reached from ${nodes[holder][0]}`);
          count.textContent = '';
        }
      }
      svg?.addEventListener('click', (event) => {
        const g = event.target.closest('g.node');
        if (g) activate(g);
      });
      svg?.addEventListener('keydown', (event) => {
        const g = event.target.closest('g.node');
        if (g && (event.key === 'Enter' || event.key === ' ')) {
          event.preventDefault();
          activate(g);
        }
      });
      document.addEventListener('click', (event) => {
        const button = event.target.closest('button[data-node]');
        if (!button) return;
        const id = Number(button.dataset.node);
        select(id);
        drawn.get(id)?.scrollIntoView({ block: 'center', inline: 'center' });
      });

      const search = document.getElementById('search');
      const count = document.getElementById('search-count');
      const results = document.getElementById('search-results');
      const matches = document.getElementById('matches');
      const resultsTitle = results.querySelector('h2');
      const maxListed = 100;
      // Lists `ids` (the first `maxListed`) under `title`, each a button that selects it.
      function list(ids, title) {
        matches.replaceChildren();
        resultsTitle.textContent = title;
        for (const id of ids.slice(0, maxListed)) {
          const button = document.createElement('button');
          button.type = 'button';
          button.className = 'node-link';
          button.dataset.node = String(id);
          button.textContent = nodes[id][0];
          const item = document.createElement('li');
          item.append(button, ' ', Object.assign(document.createElement('span'), {
            className: 'note', textContent: nodes[id][1] + (drawn.has(id) ? '' : ' (not drawn)') }));
          matches.append(item);
        }
        if (ids.length > maxListed) matches.append(line(`… and ${ids.length - maxListed} more`, 'note'));
        results.hidden = ids.length === 0;
      }
      function find(query) {
        const needle = query.trim().toLowerCase();
        clear('match');
        const found = [];
        let shown = 0;
        if (needle) {
          nodes.forEach((node, id) => {
            if (!node[0].toLowerCase().includes(needle) && !node[1].toLowerCase().includes(needle)) return;
            found.push(id);
            const g = drawn.get(id);
            if (g) {
              g.classList.add('match');
              shown++;
            }
          });
        }
        list(found, 'Matching types');
        count.textContent = !needle ? '' : found.length === 0 ? 'no node matches'
          : `${found.length} node${found.length === 1 ? ' matches' : 's match'}, ${shown} drawn`;
      }
      search.addEventListener('input', () => find(search.value));

      let zoom = 1;
      const width = svg ? parseFloat(svg.getAttribute('width')) * 4 / 3 : 0;
      const height = svg ? parseFloat(svg.getAttribute('height')) * 4 / 3 : 0;
      function applyZoom(next) {
        if (!svg || !(width > 0 && height > 0)) return;
        zoom = Math.min(8, Math.max(0.05, next));
        svg.style.width = `${width * zoom}px`;
        svg.style.height = `${height * zoom}px`;
      }
      function fit() {
        const room = document.getElementById('graph').clientWidth - 16;
        if (width > 0 && room > 0) applyZoom(Math.min(1, room / width));
      }
      document.getElementById('zoom-in').addEventListener('click', () => applyZoom(zoom * 1.25));
      document.getElementById('zoom-out').addEventListener('click', () => applyZoom(zoom / 1.25));
      document.getElementById('zoom-fit').addEventListener('click', fit);
      fit();

      // The address can ask for a search (#search=Presenter) and a click on a drawn node
      // (#click=n3, or #click=more3 for the '+N more' node of node 3), as a link to a finding or a
      // browser test would.
      for (const part of location.hash.slice(1).split('&')) {
        const [key, value] = part.split('=').map(decodeURIComponent);
        if (key === 'search' && value) {
          search.value = value;
          search.dispatchEvent(new Event('input'));
        } else if (key === 'click' && value) {
          const g = [...(svg?.querySelectorAll('g.node') ?? [])].find(
            (element) => element.querySelector('title')?.textContent === value);
          if (!g) {
            hint.textContent = `no drawn node ${value}`;
            continue;
          }
          g.scrollIntoView({ block: 'center', inline: 'center' });
          const box = g.getBoundingClientRect();
          const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2) ?? g;
          hit.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
        }
      }
    })();
    """#
}
