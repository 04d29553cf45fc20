#!/usr/bin/env python3
"""The dependency graph of src/: which file needs which, and the circles in it.

A file A depends on a file B when A `#include`s B ("include" edges) or when A
names a function or global variable that B defines and B is another .c file
("call" edges: the symbol's definition, not its declaration, is what A needs).
Collapsing files into their folders (src/net/port.c -> net) gives the folder
graph. A circle is a strongly connected component of more than one node.

Python 3 standard library only; it reads the sources as text (comments,
strings and preprocessor lines other than #include are skipped), so it needs
no build. For reading the layering by hand and for a `make lint` check
(issue 33):

    python3 tools/layers.py                 # circles inside folders, of modules, of folders
    python3 tools/layers.py -v --level modules   # with the edges inside each
    python3 tools/layers.py --level files --includes-only
    python3 tools/layers.py --why route/fib route/live
    python3 tools/layers.py --check --level modules   # exit 1 on a circle
    python3 tools/layers.py --forbid net,cc,flowctl,route:innet,coll,par,config,stats,cli
    python3 tools/layers.py --layers        # docs/architecture.md's rule (make lint)

As a module: file_graph(src) -> {file: {dep: [reasons]}}; module_graph(g)
and folder_graph(g) collapse it (a module is x.h + x.c; a header-only fast
path x-inl.h is a module of its own); sccs(g)
-> [[node, ...], ...] (the circles, largest first); inside_folders(g) keeps
the edges within a folder; forbidden(folder_graph(g), sources, targets)
lists the edges a layering rule forbids.
"""

import argparse
import os
import re
import sys

_COMMENT_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# a #define: its name, its parameters, its body (continued lines included)
_DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?'
                     r'((?:[^\n]*\\\n)*[^\n]*)', re.M)
_IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
_TOKEN = re.compile(r'->|[A-Za-z_][A-Za-z0-9_]*|\S')
_C_WORDS = frozenset(
    'auto break case char const continue default do double else enum extern float for goto if '
    'inline int long register restrict return short signed sizeof static struct switch typedef '
    'union unsigned void volatile while _Bool _Static_assert __attribute__'.split())


def _blank(m):
    """Replaces a comment or literal by spaces, keeping its newlines (line numbers)."""
    s = m.group(0)
    if s.startswith('"'):
        return '""'
    return re.sub(r'[^\n]', ' ', s)


def strip_c(text):
    """The C text without comments, string contents and preprocessor lines.
    Continued preprocessor lines (#define ... \\) go too; #include lines are
    read before this by includes()."""
    text = _COMMENT_STRING.sub(_blank, text)
    out, cont = [], False
    for line in text.split('\n'):
        is_pp = cont or line.lstrip().startswith('#')
        cont = is_pp and line.rstrip().endswith('\\')
        out.append('' if is_pp else line)
    return '\n'.join(out)


def macro_references(text):
    """Identifiers the #define bodies of a file name (not the macros' own
    names or parameters): a macro that calls a function uses it."""
    refs = set()
    for m in _DEFINE.finditer(_COMMENT_STRING.sub(_blank, text)):
        params = set(_IDENT.findall(m.group(2) or ''))
        refs.update(t for t in references(m.group(3)) if t not in params and t != m.group(1))
    return refs


def _blank_keep_strings(m):
    """_blank for comments only: an #include keeps its "path"."""
    s = m.group(0)
    return s if s.startswith('"') else re.sub(r'[^\n]', ' ', s)


def includes(text):
    """The quoted #include paths of a file, in order."""
    return _INCLUDE.findall(_COMMENT_STRING.sub(_blank_keep_strings, text))


def scan(code):
    """(definitions, references) of a stripped C file. Definitions: the
    functions and global variables it defines with external linkage (not
    static, not extern, not typedef). References: the identifiers it names,
    except member names (after . or ->), struct/union/enum tags and the
    names a top-level prototype or extern declaration declares."""
    defs, refs, skip = set(), [], set()
    depth, decl, prev = 0, [], None  # decl: (token, index in refs or None)
    for tok in _TOKEN.findall(code):
        ref_at = None
        if _IDENT.fullmatch(tok) and prev not in ('.', '->', 'struct', 'union', 'enum'):
            ref_at = len(refs)
            refs.append(tok)
        prev = tok
        if depth:
            if tok == '{':
                depth += 1
            elif tok == '}':
                depth -= 1
            continue
        if tok in ('{', ';'):
            decl = _drop_attributes(decl)
        words = [t for t, _ in decl]
        if tok == '{':
            # A function body (name '(' ... ')' '{'), an initialiser ('=' '{')
            # or a struct/union/enum body, whose tag is no variable.
            name = _function_name(words)
            if name is not None:
                if not ({'static', 'extern', 'typedef'} & set(words)):
                    defs.add(words[name])
                decl = []
            elif '=' not in words:
                decl = [(t, i) for t, i in decl if t in ('static', 'extern', 'typedef')]
                decl.append(('int', None))
            depth = 1
            continue
        if tok == ';':
            storage = {'static', 'extern', 'typedef'} & set(words)
            name = _function_name(words)
            if name is not None:  # a prototype: declares, does not use
                skip.add(decl[name][1])
            elif 'typedef' not in storage:
                for k in _variable_names(words):
                    if storage:
                        skip.add(decl[k][1])
                    else:
                        defs.add(words[k])
            decl = []
            continue
        decl.append((tok, ref_at))
    return defs, {r for i, r in enumerate(refs) if i not in skip}


def definitions(code):
    """Names of the functions and global variables a stripped .c file defines
    with external linkage."""
    return scan(code)[0]


def references(code):
    """Identifiers a stripped file uses (scan())."""
    return scan(code)[1]


def _function_name(decl):
    """The index of the name in `T name(args)` when decl is a function
    header, else None."""
    if not decl or decl[-1] != ')' or '=' in decl:
        return None
    depth = 0
    for i in range(len(decl) - 1, -1, -1):
        if decl[i] == ')':
            depth += 1
        elif decl[i] == '(':
            depth -= 1
            if depth == 0:
                if i and _IDENT.fullmatch(decl[i - 1]) and decl[i - 1] not in _C_WORDS:
                    return i - 1
                return None
    return None


def _drop_attributes(decl):
    """decl without its `__attribute__((...))` groups."""
    out, i = [], 0
    while i < len(decl):
        if decl[i][0] == '__attribute__' and i + 1 < len(decl) and decl[i + 1][0] == '(':
            depth, i = 0, i + 1
            while i < len(decl):
                depth += {'(': 1, ')': -1}.get(decl[i][0], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(decl[i])
        i += 1
    return out


def _variable_names(decl):
    """Indexes of the names a top-level `T a = ..., *b;` defines (none for a
    prototype or a function pointer)."""
    names = []
    depth, last, after_eq = 0, None, False
    for i, tok in enumerate(decl + [',']):
        if tok in '([':
            if tok == '(' and depth == 0 and not after_eq:
                return []
            depth += 1
        elif tok in ')]':
            depth -= 1
        elif depth == 0 and tok == '=':
            if last is not None:
                names.append(last)
            last, after_eq = None, True
        elif depth == 0 and tok == ',':
            if last is not None and not after_eq:
                names.append(last)
            last, after_eq = None, False
        elif (depth == 0 and not after_eq and _IDENT.fullmatch(tok) and tok not in _C_WORDS
              and (i == 0 or decl[i - 1] not in ('struct', 'union', 'enum'))):
            last = i
    return names


def read_sources(src):
    """{path relative to src: text} of every .c and .h below src."""
    files = {}
    for root, dirs, names in os.walk(src):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(('.c', '.h')):
                p = os.path.join(root, n)
                with open(p, encoding='utf-8', errors='replace') as f:
                    files[os.path.relpath(p, src)] = f.read()
    return files


def file_graph(src='src', calls=True):
    """{file: {dep: [reason, ...]}} for every .c and .h below src (paths
    relative to src, 'net/port.c'). A reason is '#include' or the symbol
    named. An include that is not a file under src (a generated header) is
    left out. With calls=False only the #include edges."""
    texts = read_sources(src)
    graph = {f: {} for f in texts}
    for f, text in texts.items():
        for inc in includes(text):
            if inc in texts and inc != f:
                graph[f].setdefault(inc, []).append('#include')
    if not calls:
        return graph
    scanned = {}
    for f, t in texts.items():
        defs, refs = scan(strip_c(t))
        scanned[f] = (defs, refs | macro_references(t))
    owner = {}
    for f in sorted(scanned):
        if f.endswith('.c'):
            for name in scanned[f][0] - {'main'}:  # the entry point, never a dependency
                owner.setdefault(name, f)
    for f in sorted(scanned):
        for name in sorted(scanned[f][1]):
            o = owner.get(name)
            if o and o != f:
                graph[f].setdefault(o, []).append(name)
    return graph


def module_of(path):
    """'core/calq.h' and 'core/calq.c' -> 'core/calq': a header and the .c of
    the same name are one module (the header's inline helpers may call into
    its own .c). A header with no such .c ('route/route.h') is a module of
    its own, and so is a fast-path header x-inl.h ('flowctl/pfc-inl'): what
    it needs counts on its own, so that a layer below may inline it without
    depending on x.c; if it calls into x.c, that is an edge like any other
    (and a circle shows when x.c calls the includer back)."""
    return path.rsplit('.', 1)[0]


def module_graph(graph):
    """The file graph collapsed into modules (module_of), same form as the
    file graph: {module: {module: [reason, ...]}}; a reason names the files."""
    return _collapse(graph, module_of)


def inside_folders(graph):
    """graph keeping only the edges between nodes of the same folder: its
    circles are those a folder has inside itself, which a circle through
    other folders would otherwise hide."""
    return {a: {b: r for b, r in deps.items() if folder_of(b) == folder_of(a)}
            for a, deps in graph.items()}


def folder_of(path):
    """'net/port.c' -> 'net'; a file directly under src is its own folder."""
    return path.split('/', 1)[0] if '/' in path else path


def folder_graph(graph):
    """The file graph collapsed into folders: {folder: {folder: [reason, ...]}}."""
    return _collapse(graph, folder_of)


def _collapse(graph, key):
    """graph with nodes grouped by key(node); a reason becomes 'a -> b: reason'."""
    out = {}
    for a, deps in graph.items():
        fa = key(a)
        out.setdefault(fa, {})
        for b, reasons in deps.items():
            fb = key(b)
            if fb != fa:
                out[fa].setdefault(fb, []).extend(f'{a} -> {b}: {r}' for r in reasons)
    for deps in list(out.values()):
        for fb in deps:
            out.setdefault(fb, {})
    return out


def sccs(graph):
    """The strongly connected components of more than one node (the
    circles), each sorted, largest first (Tarjan, iterative)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
    comps.sort(key=lambda c: (-len(c), c))
    return comps


def forbidden(graph, sources, targets):
    """The edges of a folder graph (folder_graph) from a folder in `sources`
    to one in `targets`, as (a, b, reasons): a layering rule such as "net/
    names nothing of par/" holds when this is empty."""
    return [(a, b, graph[a][b]) for a in sorted(graph) if a in sources
            for b in sorted(graph[a]) if b in targets]


# The layers of docs/architecture.md, bottom first. A folder may include or
# call its own layer and those below; net/'s layer holds the packet layer and
# the strategies it calls through *_ops tables. Inside that layer the
# strategies sit on net/ (they call its ports back) and net/ reaches them
# only through header-only modules (STRATEGY_RULE). A plain-data parameter
# header (*_params.h) may be included from any layer: config fills it, the
# model carries it.
LAYERS = [
    ('core',),
    ('net', 'cc', 'flowctl', 'route', 'link', 'xport'),
    ('ctrl', 'innet', 'coll', 'workload', 'topo'),
    ('model',),
    ('par', 'stats'),
    ('config',),
    ('report',),
    ('cli',),
]


# net/ -> the strategies of its layer: only modules without a .c (the ops
# tables' headers, *_params.h, x-inl.h fast paths), so that the strategies'
# calls back into net/'s ports make no circle.
STRATEGY_RULE = ('net', ('cc', 'flowctl', 'route', 'link', 'xport'))


def layer_of(folder):
    for i, names in enumerate(LAYERS):
        if folder in names:
            return i
    return None


def layer_violations(graph):
    """The rule of docs/architecture.md against the file graph: the edges
    that point up a layer (a folder not in LAYERS is an error too), the
    edges from net/ to a strategy module that has a .c (STRATEGY_RULE), and
    every module circle that crosses folders. Returns a list of lines to
    print; empty when the rule holds."""
    out = []
    has_c = {module_of(f) for f in graph if f.endswith('.c')}
    for a in sorted(graph):
        fa = folder_of(a)
        la = layer_of(fa)
        if la is None:
            out.append(f'{fa}/: not in a layer (tools/layers.py LAYERS, docs/architecture.md)')
            continue
        for b, reasons in sorted(graph[a].items()):
            fb = folder_of(b)
            lb = layer_of(fb)
            if (fa == STRATEGY_RULE[0] and fb in STRATEGY_RULE[1] and module_of(b) in has_c
                    and not b.endswith('_params.h')):
                out.append(f'net/ into a strategy module with a .c (only its ops table or a '
                           f'header-only -inl.h): {a} -> {b}: ' + '; '.join(sorted(set(reasons))))
            if lb is None or lb <= la or b.endswith('_params.h'):
                continue
            out.append(f'up a layer: {a} -> {b}: ' + '; '.join(sorted(set(reasons))))
    for comp in sccs(module_graph(graph)):
        if len({folder_of(m) for m in comp}) > 1:
            out.append('circle across folders: ' + ' '.join(comp))
    return out


def back_edges(graph, comp):
    """The edges inside one component, as (a, b, reasons)."""
    members = set(comp)
    return [(a, b, graph[a][b]) for a in comp for b in sorted(graph[a]) if b in members]


def _print_circles(title, graph, comps, verbose, out):
    print(f'{title}: {len(comps)} circle(s)', file=out)
    for c in comps:
        print(f'  {len(c)}: ' + ' '.join(c), file=out)
        if verbose:
            for a, b, reasons in back_edges(graph, c):
                shown = sorted(set(reasons))
                more = f' (+{len(shown) - 4})' if len(shown) > 4 else ''
                print(f'      {a} -> {b}: ' + ', '.join(shown[:4]) + more, file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--src', default='src', help='the source folder (default: src)')
    ap.add_argument('--includes-only', action='store_true', help='#include edges only')
    ap.add_argument('--level', choices=('files', 'modules', 'inside', 'folders', 'all'),
                    default='all', help='which graph to print the circles of: files, modules, '
                    'modules inside each folder, folders (default: the last three)')
    ap.add_argument('-v', '--verbose', action='store_true', help='print the edges of each circle')
    ap.add_argument('--why', nargs=2, metavar=('A', 'B'),
                    help='why file, module or folder A depends on B (both directions)')
    ap.add_argument('--forbid', action='append', default=[], metavar='FROM:TO',
                    help='folders (comma-separated) that must not include or call the TO '
                    'folders, e.g. net,cc:par,innet; the edges that do are printed and the exit '
                    'status is 1 (repeatable)')
    ap.add_argument('--layers', action='store_true',
                    help='check the layering of docs/architecture.md: no include or call up a '
                    'layer, no module circle across folders, net/ into its strategies only '
                    'through modules without a .c; exit 1 with the offending edges (make lint)')
    ap.add_argument('--check', action='store_true',
                    help='exit 1 when the graphs printed have a circle (the lint check)')
    a = ap.parse_args(argv)
    g = file_graph(a.src, calls=not a.includes_only)
    if a.why:
        x, y = a.why
        fg = g if x in g else module_graph(g) if x in module_graph(g) else folder_graph(g)
        for p, q in ((x, y), (y, x)):
            reasons = fg.get(p, {}).get(q)
            print(f'{p} -> {q}: ' + ('; '.join(sorted(set(reasons))) if reasons else 'no'))
        return 0
    if a.layers:
        bad = layer_violations(g)
        for line in dict.fromkeys(bad):
            print(line)
        print(f'layers: {len(bad)} violation(s) of docs/architecture.md')
        return 1 if bad else 0
    if a.forbid:
        fg, bad = folder_graph(g), 0
        for rule in a.forbid:
            src, _, dst = rule.partition(':')
            for x, y, reasons in forbidden(fg, set(src.split(',')), set(dst.split(','))):
                bad += 1
                print(f'{x} -> {y}: ' + '; '.join(sorted(set(reasons))))
        return 1 if bad else 0
    mg = module_graph(g)
    levels = {'files': g, 'modules': mg, 'inside': inside_folders(mg), 'folders': folder_graph(g)}
    shown = ('inside', 'modules', 'folders') if a.level == 'all' else (a.level,)
    found = 0
    for name in shown:
        graph = levels[name]
        comps = sccs(graph)
        found += len(comps)
        title = 'modules inside folders' if name == 'inside' else name
        _print_circles(title, graph, comps, a.verbose, sys.stdout)
    return 1 if a.check and found else 0


if __name__ == '__main__':
    sys.exit(main())
