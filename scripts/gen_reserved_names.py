#!/usr/bin/env python3
"""Generate compiler/reserved_names.inc: the names a stencil may not take.

A stencil's NAME becomes C identifiers in the generated code (NAME, NAME_variant, NAME_c,
NAME_HALO, ...) and the file NAME.h in a directory on the include path. So the compiler must
reject a NAME that clashes with an identifier declared at global scope by the headers the
generated code includes, and a NAME whose NAME.h would shadow a header those includes reach
(a stencil named `math` would hijack `#include <math.h>`). This script computes both lists
from the real toolchain and writes them as two sorted C arrays (for bsearch):

  reserved_header_identifiers  functions, variables, typedefs, struct/union/class/enum tags,
                               enumerators, namespaces and macros (from -dM) declared at global
                               scope, for the C compilation (gcc) and both CUDA passes (nvcc
                               host and device, plus the crt/host_runtime.h nvcc adds to the
                               host compile); names declared only inside a named C++ namespace
                               (std::pair) are left out, extern "C" blocks are transparent.
  reserved_header_files        base names (no directory, no extension) of every header those
                               includes reach, from gcc -M and the -M of nvcc's passes.

Names that start with `_` are left out of both (the language reserves them already); only
valid C identifiers are kept (a stencil name is one).

The includes are read from the templates (templates/c/stencil_c.c.tmpl,
templates/cuda/stencil_cuda.cu.tmpl and templates/c/stencil.h.tmpl, which NAME.h is; every
#include, conditional or not, except "{{name}}.h"), plus <omp.h> on the C side: the generated
C code is compiled with -fopenmp and linked with the OpenMP runtime, so a stencil named like
an omp_* routine would clash at link time (--no-omp leaves it out).

How it works: each compilation is preprocessed by the real compiler (gcc -E; for CUDA the
preprocessing commands nvcc itself runs, taken from `nvcc --dryrun` and the files kept by
`nvcc --keep`), then the preprocessed text is parsed by clang (`-Xclang -ast-dump=json
-fsyntax-only`) and the top-level declarations of the AST are collected. clang 14 cannot
compile CUDA 13's headers as CUDA, but parses nvcc's preprocessed output as plain C++; the
errors it reports there are semantic (constexpr redeclarations, asm constraints) and leave the
declarations in the AST. Without clang (or with --scanner) a brace/namespace-depth-aware
scanner of the preprocessed text is used instead; --cross-check runs both and prints where
they differ.

Run it from anywhere (it finds the repository from its own path), after a toolchain upgrade
(gcc, glibc, CUDA) or a change to the #include lines of the templates or of
runtime/include/stenc/*.h, and commit the regenerated file:

    python3 scripts/gen_reserved_names.py            # writes compiler/reserved_names.inc
    python3 scripts/gen_reserved_names.py --check    # exit 1 if the file is out of date
    python3 scripts/gen_reserved_names.py --cross-check -v   # compare clang with the scanner

Options --gcc, --nvcc, --clang name the tools (default: from PATH). Standard library only.
"""

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_INCLUDE = os.path.join(REPO, "runtime", "include")
C_TEMPLATES = ["templates/c/stencil.h.tmpl", "templates/c/stencil_c.c.tmpl"]
CUDA_TEMPLATES = ["templates/c/stencil.h.tmpl", "templates/cuda/stencil_cuda.cu.tmpl"]
C_FLAGS = ["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-fopenmp"]
NVCC_FLAGS = ["-std=c++17", "-arch=sm_90"]
C_EXTRA_HEADERS = ["omp.h"]
OUTPUT = os.path.join(REPO, "compiler", "reserved_names.inc")

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
verbose = False


def log(msg):
    if verbose:
        print(msg, file=sys.stderr)


def keep_name(name):
    return bool(name) and IDENT.match(name) is not None and not name.startswith("_")


def run(cmd, cwd=None, check=True):
    log("$ " + " ".join(shlex.quote(c) for c in cmd))
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, errors="replace")
    if check and r.returncode != 0:
        sys.exit("gen_reserved_names: command failed (%d): %s\n%s"
                 % (r.returncode, " ".join(cmd), r.stderr[-4000:]))
    return r


# ----------------------------------------------------------------------------------------
# The includes of the generated code


def template_includes(paths):
    out = []
    for rel in paths:
        with open(os.path.join(REPO, rel), encoding="utf-8") as f:
            for line in f:
                m = re.match(r'\s*#\s*include\s+([<"][^>"]+[>"])', line)
                if m and "{{" not in m.group(1) and m.group(1) not in out:
                    out.append(m.group(1))
    if not out:
        sys.exit("gen_reserved_names: no #include found in %s" % ", ".join(paths))
    return out


def probe_source(includes):
    return "".join("#include %s\n" % inc for inc in includes)


# ----------------------------------------------------------------------------------------
# Header files from -M output


def deps_headers(text):
    """Base names of the files listed in make-style dependency output."""
    text = text.replace("\\\n", " ")
    names = set()
    for line in text.splitlines():
        if ":" not in line:
            continue
        for path in line.split(":", 1)[1].split():
            base = os.path.basename(path)
            if base.startswith("probe."):
                continue
            stem = base.rsplit(".", 1)[0] if "." in base else base
            names.add(stem)
    return names


def macro_names(text):
    names = set()
    for line in text.splitlines():
        m = re.match(r"\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)", line)
        if m:
            names.add(m.group(1))
    return names


# ----------------------------------------------------------------------------------------
# Declarations from clang's JSON AST

RECORD_KINDS = {"RecordDecl", "CXXRecordDecl"}
NAMED_KINDS = {"FunctionDecl", "VarDecl", "TypedefDecl", "TypeAliasDecl",
               "FunctionTemplateDecl", "ClassTemplateDecl", "VarTemplateDecl",
               "TypeAliasTemplateDecl", "NamespaceAliasDecl", "ConceptDecl",
               "ClassTemplateSpecializationDecl", "ClassTemplatePartialSpecializationDecl",
               "VarTemplateSpecializationDecl", "VarTemplatePartialSpecializationDecl"}
IGNORED_KINDS = {"StaticAssertDecl", "EmptyDecl", "FileScopeAsmDecl", "UsingShadowDecl",
                 "PragmaCommentDecl", "PragmaDetectMismatchDecl", "BuiltinTemplateDecl",
                 "ConstructorUsingShadowDecl", "UsingPackDecl", "UnresolvedUsingValueDecl",
                 "UnresolvedUsingTypenameDecl", "ExportDecl", "ImportDecl",
                 "LifetimeExtendedTemporaryDecl"}


class Collector:
    def __init__(self, lang):
        self.lang = lang
        self.names = set()
        self.notes = []          # things worth a look (using namespace, C-linkage in a namespace)

    def add(self, name):
        if name:
            self.names.add(name)

    def c_record(self, rec):
        """C: tags and enumerators declared inside a struct/union are at file scope."""
        for d in rec.get("inner", []):
            if d.get("kind") in RECORD_KINDS:
                self.add(d.get("name"))
                self.c_record(d)
            elif d.get("kind") == "EnumDecl":
                self.enum(d)

    def enum(self, d):
        self.add(d.get("name"))
        if not d.get("scopedEnumTag"):
            for e in d.get("inner", []):
                if e.get("kind") == "EnumConstantDecl":
                    self.add(e.get("name"))

    def walk(self, decls, where="global", clinkage=False):
        """where: "global" (collect everything) or a named namespace (collect only what has C
        linkage, which is the same entity as a global of that name)."""
        for d in decls:
            if d.get("isImplicit"):
                continue
            k = d.get("kind")
            name = d.get("name")
            if k == "LinkageSpecDecl":
                self.walk(d.get("inner", []), where, clinkage or d.get("language") == "C")
            elif k == "NamespaceDecl":
                if where == "global" and name:
                    self.add(name)
                if not name or d.get("isInline"):
                    self.walk(d.get("inner", []), where, clinkage)
                else:
                    sub = name if where == "global" else where + "::" + name
                    self.walk(d.get("inner", []), sub, False)
            elif where != "global":
                if clinkage and k in ("FunctionDecl", "VarDecl") and keep_name(name):
                    self.notes.append("C-linkage %s declared in namespace %s" % (name, where))
                    self.add(name)
            elif k in NAMED_KINDS:
                self.add(name)
            elif k in RECORD_KINDS:
                self.add(name)
                if self.lang == "c":
                    self.c_record(d)
            elif k == "EnumDecl":
                self.enum(d)
            elif k == "UsingDecl":
                self.add((name or "").split("::")[-1])
            elif k == "UsingDirectiveDecl":
                ns = (d.get("nominatedNamespace") or {}).get("name", "?")
                self.notes.append("using namespace %s at global scope (its names not added)"
                                  % ns)
            elif k not in IGNORED_KINDS and keep_name(name):
                self.notes.append("unhandled top-level %s %s (added)" % (k, name))
                self.add(name)


def clang_decls(clang, path, lang):
    if lang == "c":
        # gcc's preprocessed C may use gcc's _FloatN types, unknown to older clang.
        cmd = [clang, "-x", "c", "-std=c11", "-D_Float128=__float128", "-D_Float64x=long double",
               "-D_Float32=float", "-D_Float64=double", "-D_Float32x=double"]
    else:
        cmd = [clang, "-x", "c++", "-std=c++17"]
    cmd += ["-fsyntax-only", "-ferror-limit=0", "-w", "-Xclang", "-ast-dump=json", path]
    log("$ " + " ".join(shlex.quote(c) for c in cmd))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = r.stderr.decode("utf-8", "replace").splitlines()
    errors = [e for e in errors if "error:" in e]
    # Syntax errors (unlike the semantic ones clang reports on nvcc's headers) may lose
    # declarations: say so.
    syntax = [e for e in errors if re.search(r"error: (expected|unknown type name|unexpected)",
                                             e)]
    try:
        tu = json.loads(r.stdout)
    except ValueError:
        return None, errors, syntax, []
    del r
    col = Collector(lang)
    col.walk(tu.get("inner", []))
    return col.names, errors, syntax, col.notes


# ----------------------------------------------------------------------------------------
# Fallback: a brace/namespace-depth-aware scanner of preprocessed text

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>(?:u8|u|U|L)?R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"
           |(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*"|(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*')
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.']|)*)
  | (?P<op>::|->\*?|\.\.\.|\.\*|&&|\|\||[-+*/%^&|!=]=|<=|>=|\+\+|--|.)
""", re.S | re.X)

KEYWORDS = set("""
alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class concept
const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
default delete do double dynamic_cast else enum explicit export extern false float for friend
goto if inline int long mutable namespace new noexcept nullptr operator private protected
public register reinterpret_cast requires restrict return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try typedef
typeid typename typeof union unsigned using virtual void volatile wchar_t while final override
_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert
_Thread_local
""".split())
# keyword + balanced (...) dropped from declarations; the type-valued ones leave a placeholder
STRIP_CALLS = {"__attribute__", "__attribute", "__declspec", "alignas", "_Alignas", "asm",
               "__asm__", "__asm", "noexcept", "throw", "__extension__"}
TYPE_CALLS = {"decltype", "__decltype", "typeof", "__typeof__", "__typeof", "_Atomic",
              "__underlying_type"}
TAG_KEYS = {"struct", "union", "class", "enum"}


def is_ident(t):
    return IDENT.match(t) is not None


def tokenize(text):
    text = "\n".join("" if l.lstrip().startswith("#") else l for l in text.splitlines())
    toks = []
    for m in TOKEN.finditer(text):
        if m.lastgroup == "ws":
            continue
        toks.append(m.group(0))
    return toks


def match_close(toks, i, open_, close):
    """Index just past the group opened at toks[i]."""
    depth = 0
    n = len(toks)
    while i < n:
        if toks[i] == open_:
            depth += 1
        elif toks[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def match_angle(toks, i):
    """toks[i] == '<': index past the matching '>' (parens nest, '<' after a name nests)."""
    depth, paren, n = 0, 0, len(toks)
    while i < n:
        t = toks[i]
        if t in ("(", "["):
            paren += 1
        elif t in (")", "]"):
            paren -= 1
        elif paren == 0 and t == "<":
            depth += 1
        elif paren == 0 and t == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif paren == 0 and t in (";", "{", "}"):
            return i
        i += 1
    return n


def strip_specials(toks):
    out, i, n = [], 0, len(toks)
    while i < n:
        t = toks[i]
        if t in STRIP_CALLS or t in TYPE_CALLS:
            j = i + 1
            if j < n and toks[j] == "(":
                j = match_close(toks, j, "(", ")")
            if t in TYPE_CALLS:
                out.append("<type>")
            i = j
            continue
        if t == "[" and i + 1 < n and toks[i + 1] == "[":
            i = match_close(toks, i, "[", "]")
            continue
        out.append(t)
        i += 1
    return out


def strip_template_prefix(toks):
    while toks and toks[0] == "template":
        if len(toks) > 1 and toks[1] == "<":
            toks = toks[match_angle(toks, 1):]
        else:
            toks = toks[1:]
    return toks


def depth0(toks):
    """Yield (index, token) at paren/bracket/angle depth 0; angle groups follow a name."""
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t == "(":
            yield i, t
            i = match_close(toks, i, "(", ")")
            continue
        if t == "[":
            i = match_close(toks, i, "[", "]")
            continue
        if t == "<" and i > 0 and (is_ident(toks[i - 1]) and toks[i - 1] not in KEYWORDS
                                   or toks[i - 1] == "template"):
            i = match_angle(toks, i)
            continue
        yield i, t
        i += 1


def split_commas(toks):
    segs, start = [], 0
    for i, t in depth0(toks):
        if t == ",":
            segs.append(toks[start:i])
            start = i + 1
    segs.append(toks[start:])
    return segs


def declarator_name(seg):
    idx = [i for i, _ in depth0(seg)]
    for i in idx:
        if seg[i] == "operator":
            return None
        if seg[i] == "=":
            seg = seg[:i]
            idx = [j for j in idx if j < i]
            break
    for i in idx:
        if seg[i] != "(":
            continue
        prev = seg[i - 1] if i > 0 else ""
        inner = seg[i + 1:match_close(seg, i, "(", ")") - 1]
        if prev not in (")", "]") and inner and inner[0] in ("*", "&", "&&", "^"):
            return declarator_name(inner)      # T (*name)(...): a grouped declarator
        if is_ident(prev) and prev not in KEYWORDS:
            if i > 1 and seg[i - 2] in ("::", "~", "."):
                return None
            return prev
        if prev in (")", "]"):
            continue
        if len(inner) == 1:
            return declarator_name(inner)
    last = None
    for i in idx:
        t = seg[i]
        if t == "{}":
            continue
        if is_ident(t) and t not in KEYWORDS:
            qualified = i > 0 and seg[i - 1] in ("::", "~") or \
                i + 1 < len(seg) and seg[i + 1] == "::"
            last = None if qualified else t
    return last


class Scanner:
    def __init__(self, toks, lang):
        self.t = toks
        self.n = len(toks)
        self.lang = lang
        self.names = set()
        self.notes = []

    def add(self, name):
        if name and is_ident(name) and name not in KEYWORDS:
            self.names.add(name)

    def skip_braces(self, i):
        return match_close(self.t, i, "{", "}")

    def tags_in(self, decl):
        """Tags named in a declaration (struct X *p declares X where it stands; in C++ also
        inside a parameter list, in C that is prototype scope)."""
        where = enumerate(decl) if self.lang == "c++" else depth0(decl)
        for i, t in where:
            if t in TAG_KEYS and i + 1 < len(decl):
                j = i + 1
                if t == "enum" and decl[j] in ("class", "struct"):
                    j += 1
                if j < len(decl) and is_ident(decl[j]) and decl[j] not in KEYWORDS and \
                        (j + 1 >= len(decl) or decl[j + 1] != "::") and decl[j - 1] != "::":
                    self.add(decl[j])

    def tag_definition(self, decl):
        """If decl (before '{') heads a struct/union/class/enum body: (index of the keyword,
        name or None, is_enum, scoped)."""
        positions = [i for i, t in depth0(decl) if t in TAG_KEYS]
        for k in reversed(positions):
            j = k + 1
            scoped = False
            if decl[k] == "enum" and j < len(decl) and decl[j] in ("class", "struct"):
                j, scoped = j + 1, True
            name = None
            qualified = False
            while j < len(decl) and (is_ident(decl[j]) and decl[j] not in KEYWORDS
                                     or decl[j] == "::"):
                if decl[j] == "::":
                    qualified = True
                else:
                    name = decl[j]
                j += 1
            if j < len(decl) and decl[j] == "<":
                j = match_angle(decl, j)
            while j < len(decl) and decl[j] in ("final", "sealed"):
                j += 1
            if j == len(decl) or decl[j] == ":":
                if decl[k] != "enum" and k > 0 and decl[k - 1] in ("enum",):
                    continue
                return k, (None if qualified else name), decl[k] == "enum", scoped
        return None

    def enum_body(self, i, collect):
        """toks[i] is just past '{': collect enumerators; return index past '}'."""
        t, n = self.t, self.n
        expect = True
        depth = 0
        while i < n:
            x = t[i]
            if x in ("(", "[", "{"):
                depth += 1
            elif x in (")", "]"):
                depth -= 1
            elif x == "}":
                if depth == 0:
                    return i + 1
                depth -= 1
            elif depth == 0 and x == ",":
                expect = True
                i += 1
                continue
            if expect and depth == 0 and is_ident(x):
                if collect:
                    self.add(x)
                expect = False
            elif expect and x not in ("[",):
                expect = False
            i += 1
        return n

    def finish(self, decl, ctx):
        decl = strip_specials(decl)
        decl = strip_template_prefix(decl)
        if not decl or decl[0] in (",", ":", "static_assert", "_Static_assert", "friend"):
            return
        if ctx == "crecord":
            if self.lang == "c":
                self.tags_in(decl)
            return
        if decl[0] == "using":
            if len(decl) > 1 and decl[1] == "namespace":
                self.notes.append("using namespace %s at global scope"
                                  % "".join(decl[2:]))
            elif len(decl) > 2 and decl[2] == "=":
                self.add(decl[1])
            else:
                ids = [x for x in decl[1:] if is_ident(x) and x != "typename"]
                if ids:
                    self.add(ids[-1])
            return
        if decl[0] == "namespace":
            if len(decl) > 2 and decl[2] == "=":
                self.add(decl[1])
            return
        if decl[0] == "extern" and len(decl) > 1 and decl[1].startswith('"'):
            decl = decl[2:]
        self.tags_in(decl)
        for seg in split_commas(decl):
            self.add(declarator_name(seg))

    def parse(self, i, ctx):
        """Parse declarations from toks[i] to the '}' closing this level (or the end).
        ctx: "global" (collect), "crecord" (C struct body: collect tags and enumerators),
        "none" (nothing global in here). Returns the index past the '}'."""
        t, n = self.t, self.n
        decl = []
        while i < n:
            x = t[i]
            if x == ";":
                if ctx != "none":
                    self.finish(decl, ctx)
                decl = []
                i += 1
            elif x == "}":
                if ctx != "none" and decl:
                    self.finish(decl, ctx)
                return i + 1
            elif x in ("(", "["):
                j = match_close(t, i, x, ")" if x == "(" else "]")
                decl.extend(t[i:j])
                i = j
            elif x == "{":
                i = self.brace(i, decl, ctx)
                if decl and decl[-1] == "<reset>":
                    decl = []
            else:
                decl.append(x)
                i += 1
        return n

    def brace(self, i, decl, ctx):
        """toks[i] == '{' at this level: parse or skip the group, updating decl in place."""
        if ctx == "none":
            # Only nesting matters, except a C record body nested in a C record.
            j = self.skip_braces(i)
            decl.append("{}")
            return j
        d = strip_specials(decl)
        d = strip_template_prefix(d)
        if len(d) == 2 and d[0] == "extern" and d[1].startswith('"'):
            j = self.parse(i + 1, ctx)
            decl[:] = ["<reset>"]
            return j
        if d and (d[0] == "namespace" or d[:2] == ["inline", "namespace"]):
            inline = d[0] == "inline"
            rest = d[2:] if inline else d[1:]
            name = rest[0] if rest and is_ident(rest[0]) else None
            nested = len(rest) > 1 and rest[1] == "::"
            if ctx == "global" and name and not nested:
                self.add(name)
            sub = ctx if (name is None or inline) and ctx == "global" else "none"
            j = self.parse(i + 1, sub)
            decl[:] = ["<reset>"]
            return j
        tag = self.tag_definition(d)
        if tag:
            k, name, is_enum, scoped = tag
            if name:
                self.add(name)
            if is_enum:
                j = self.enum_body(i + 1, not scoped)
            else:
                sub = "crecord" if self.lang == "c" else "none"
                j = self.parse(i + 1, sub)
            # keep what precedes the tag keyword; the tag becomes a type placeholder
            kk = [idx for idx, _ in depth0(decl) if decl[idx] in TAG_KEYS]
            cut = kk[-1] if kk else len(decl)
            decl[:] = decl[:cut] + ["<type>"]
            return j
        if ctx == "crecord":
            decl.append("{}")
            return self.skip_braces(i)
        has_eq = any(x == "=" for _, x in depth0(d))
        has_paren = any(x == "(" for _, x in depth0(d))
        if has_eq or not has_paren or (d and d[-1] in ("{}",)):
            decl.append("{}")          # an initializer: the declaration goes on
            return self.skip_braces(i)
        self.finish(decl, ctx)         # a function body
        decl[:] = ["<reset>"]
        return self.skip_braces(i)


def scan_decls(path, lang):
    with open(path, encoding="utf-8", errors="replace") as f:
        toks = tokenize(f.read())
    # In C these C++ keywords are ordinary names (wchar_t is a typedef of <stddef.h>).
    for kw in ("wchar_t", "char8_t", "char16_t", "char32_t", "bool", "true", "false"):
        (KEYWORDS.discard if lang == "c" else KEYWORDS.add)(kw)
    sc = Scanner(toks, lang)
    sc.parse(0, "global")
    return sc.names, sc.notes


# ----------------------------------------------------------------------------------------
# The compilations


def c_compilation(gcc, work, extra_headers):
    """Preprocessed C probe, its macros and its headers."""
    includes = template_includes(C_TEMPLATES) + ["<%s>" % h for h in extra_headers]
    src = os.path.join(work, "probe.c")
    with open(src, "w") as f:
        f.write(probe_source(includes))
    base = [gcc] + C_FLAGS + ["-I" + RUNTIME_INCLUDE]
    pre = os.path.join(work, "probe_c.i")
    run(base + ["-E", src, "-o", pre])
    macros = macro_names(run(base + ["-E", "-dM", src]).stdout)
    headers = deps_headers(run(base + ["-M", src]).stdout)
    return includes, [(pre, "c", "gcc C")], macros, headers


def nvcc_commands(nvcc, src, obj, keep):
    """The host-compiler command lines nvcc runs: (host -E, device -E, final host -c)."""
    r = run([nvcc] + NVCC_FLAGS + ["-I" + RUNTIME_INCLUDE, "-c", src, "-o", obj,
                                    "--keep", "--keep-dir", keep, "--dryrun"])
    host_e = dev_e = final = None
    for line in r.stderr.splitlines() + r.stdout.splitlines():
        if not line.startswith("#$ "):
            continue
        argv = shlex.split(line[3:])
        if not argv or "=" in argv[0] or "cudafe" in argv[0] or "cicc" in argv[0]:
            continue
        if "-E" in argv and src in argv:
            if any(a.startswith("-D__CUDA_ARCH__=") for a in argv):
                dev_e = argv
            else:
                host_e = argv
        elif "-c" in argv and any(a.endswith(".cudafe1.cpp") for a in argv):
            final = argv
    if not (host_e and dev_e and final):
        sys.exit("gen_reserved_names: could not find nvcc's preprocessing commands in "
                 "`nvcc --dryrun` output:\n" + r.stderr[-3000:])
    return host_e, dev_e, final


def with_output(argv, extra, out=None):
    """argv with its -o operand removed (or replaced by out) and extra options added."""
    res, i = [], 0
    while i < len(argv):
        if argv[i] == "-o":
            i += 2
            continue
        res.append(argv[i])
        i += 1
    res[1:1] = extra
    if out:
        res += ["-o", out]
    return res


def cuda_compilation(nvcc, work):
    includes = template_includes(CUDA_TEMPLATES)
    src = os.path.join(work, "probe.cu")
    with open(src, "w") as f:
        f.write(probe_source(includes))
    keep = os.path.join(work, "keep")
    os.mkdir(keep)
    obj = os.path.join(work, "probe.o")
    host_e, dev_e, final = nvcc_commands(nvcc, src, obj, keep)
    # The real compile, keeping nvcc's intermediate files.
    run([nvcc] + NVCC_FLAGS + ["-I" + RUNTIME_INCLUDE, "-c", src, "-o", obj,
                               "--keep", "--keep-dir", keep])
    host_ii = os.path.join(work, "probe_host.ii")
    dev_ii = os.path.join(work, "probe_dev.ii")
    run(with_output(host_e, [], host_ii))
    run(with_output(dev_e, [], dev_ii))
    # The final host compile of the cudafe output adds crt/host_runtime.h.
    final_e = [("-E" if a == "-c" else a) for a in final]
    final_ii = os.path.join(work, "probe_final.ii")
    run(with_output(final_e, [], final_ii))
    macros, headers = set(), set()
    for argv in (host_e, dev_e, final_e):
        macros |= macro_names(run(with_output(argv, ["-dM"])).stdout)
        headers |= deps_headers(run(with_output(argv, ["-M"])).stdout)
    headers = {h for h in headers if not h.startswith("probe")}
    units = [(host_ii, "c++", "nvcc host"), (dev_ii, "c++", "nvcc device"),
             (final_ii, "c++", "nvcc final host")]
    return includes, units, macros, headers


def tool_version(cmd, pattern):
    out = run(cmd, check=False)
    m = re.search(pattern, out.stdout + out.stderr)
    return m.group(1) if m else "?"


# ----------------------------------------------------------------------------------------
# Output


def c_array(name, items, indent="    ", width=100):
    lines = ["static const char *const %s[] = {" % name]
    cur = indent
    for s in items:
        piece = '"%s",' % s
        if len(cur) + len(piece) + (1 if cur.strip() else 0) > width:
            lines.append(cur.rstrip())
            cur = indent
        cur += (" " if cur.strip() else "") + piece
    if cur.strip():
        lines.append(cur.rstrip())
    lines.append("};")
    return "\n".join(lines)


def wrap_comment(text, width=100):
    words = text.split()
    lines, cur = [], "/*"
    for w in words:
        if len(cur) + 1 + len(w) > width - 3:
            lines.append(cur)
            cur = " *"
        cur += " " + w
    lines.append(cur + " */")
    return "\n".join(lines)


def library_symbols(gcc, nvcc):
    """Names the shared libraries of a stenc program export (libc, libm, libgomp, libcudart):
    a stencil's launcher of such a name would interpose on the library's function at link
    time (a stencil named `read` replaces read(2) for the whole program)."""
    libs = []
    for name in ("libc.so.6", "libm.so.6", "libgomp.so.1"):
        path = run([gcc, "-print-file-name=" + name]).stdout.strip()
        if os.path.isabs(path) and os.path.exists(path):
            libs.append(path)
    cuda_root = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which(nvcc))))
    for cand in ("lib64/libcudart.so", "targets/x86_64-linux/lib/libcudart.so"):
        path = os.path.join(cuda_root, cand)
        if os.path.exists(path):
            libs.append(os.path.realpath(path))
            break
    names = set()
    for lib in libs:
        for line in run(["nm", "-D", "--defined-only", lib]).stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3:
                names.add(parts[2].split("@")[0])
    return {x for x in names if keep_name(x)}, [os.path.basename(x) for x in libs]


def render(idents, headers, gcc_ver, nvcc_ver, clang_ver, method, c_inc, cu_inc, symbols=(),
           libs=()):
    today = datetime.date.today().isoformat()
    parts = [
        wrap_comment("Generated by scripts/gen_reserved_names.py from gcc %s and nvcc %s "
                     "(declarations read by %s) on %s: do not edit; rerun the script after a "
                     "toolchain or template include change." % (gcc_ver, nvcc_ver,
                                                               method if method != "clang"
                                                               else "clang " + clang_ver,
                                                               today)),
        wrap_comment("C includes: %s. CUDA includes: %s."
                     % (" ".join(c_inc), " ".join(cu_inc))),
        "",
        wrap_comment("Identifiers declared at global scope by the headers generated code "
                     "includes (C and CUDA): functions, variables, types, tags, enumerators, "
                     "namespaces and macros; not those starting with _. %d names, sorted "
                     "(strcmp order) for bsearch." % len(idents)),
        c_array("reserved_header_identifiers", idents),
        "",
        wrap_comment("Base names of the headers those includes reach (a stencil's NAME.h "
                     "must not shadow one). %d names, sorted (strcmp order)." % len(headers)),
        c_array("reserved_header_files", headers),
        "",
        wrap_comment("Symbols the libraries a stenc program links export (%s) that the "
                     "headers above do not declare: a launcher of that name would replace the "
                     "library's function at link time. %d names, sorted (strcmp order)."
                     % (" ".join(libs), len(symbols))),
        c_array("reserved_link_symbols", sorted(symbols)),
        "",
    ]
    return "\n".join(parts)


MUST_HAVE = ["sqrt", "fmin", "round", "strlen", "exp2", "size_t", "NULL", "INFINITY", "malloc",
             "float2", "dim3", "make_float2", "cudaMalloc", "cudaError_t", "j0", "y1", "printf",
             "omp_get_num_threads", "memcpy", "uint32_t", "FILE"]
SUSPECT = ["x", "y", "z", "w", "n", "i", "j", "k", "p", "ptr", "size", "count", "value", "len",
           "a", "b", "c", "s", "t", "data", "dst", "src", "result", "ret", "val", "pair",
           "vector", "string", "T"]


def main():
    global verbose
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gcc", default=os.environ.get("CC_FOR_NAMES", "gcc"))
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--clang", default="clang")
    ap.add_argument("-o", "--output", default=OUTPUT)
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if the output differs (ignoring the date)")
    ap.add_argument("--no-omp", action="store_true", help="leave <omp.h> out of the C side")
    ap.add_argument("--scanner", action="store_true", help="use the scanner, not clang")
    ap.add_argument("--cross-check", action="store_true",
                    help="also run the scanner and print where it differs from clang")
    ap.add_argument("--keep-temp", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    verbose = args.verbose

    for tool in (args.gcc, args.nvcc):
        if not shutil.which(tool):
            sys.exit("gen_reserved_names: %s not found" % tool)
    use_clang = not args.scanner and shutil.which(args.clang) is not None
    if not use_clang and not args.scanner:
        print("gen_reserved_names: %s not found, using the scanner" % args.clang,
              file=sys.stderr)

    work = tempfile.mkdtemp(prefix="stenc-reserved-")
    try:
        c_inc, c_units, c_macros, c_headers = c_compilation(
            args.gcc, work, [] if args.no_omp else C_EXTRA_HEADERS)
        cu_inc, cu_units, cu_macros, cu_headers = cuda_compilation(args.nvcc, work)

        decls = set()
        method = "clang" if use_clang else "scanner"
        for path, lang, label in c_units + cu_units:
            names = None
            if use_clang:
                names, errors, syntax, notes = clang_decls(args.clang, path, lang)
                if names is None:
                    print("gen_reserved_names: clang produced no AST for %s; using the scanner"
                          % label, file=sys.stderr)
                    method = "clang and scanner"
                else:
                    kept = {x for x in names if keep_name(x)}
                    print("%-16s clang: %5d names (%d kept), %d errors (%d syntax)"
                          % (label, len(names), len(kept), len(errors), len(syntax)),
                          file=sys.stderr)
                    for e in (errors if verbose else syntax)[:20]:
                        print("    " + e, file=sys.stderr)
                    for note in sorted(set(notes)):
                        print("    note: " + note, file=sys.stderr)
            if names is None or args.cross_check:
                snames, snotes = scan_decls(path, lang)
                skept = {x for x in snames if keep_name(x)}
                print("%-16s scanner: %5d names kept" % (label, len(skept)), file=sys.stderr)
                for note in sorted(set(snotes)):
                    print("    note: " + note, file=sys.stderr)
                if names is None:
                    names = snames
                else:
                    kept = {x for x in names if keep_name(x)}
                    only_c = sorted(kept - skept)
                    only_s = sorted(skept - kept)
                    print("    only clang (%d): %s" % (len(only_c), " ".join(only_c[:60])),
                          file=sys.stderr)
                    print("    only scanner (%d): %s" % (len(only_s), " ".join(only_s[:60])),
                          file=sys.stderr)
            decls |= names

        macros = c_macros | cu_macros
        idents = sorted({x for x in decls | macros if keep_name(x)})
        headers = sorted({x for x in c_headers | cu_headers if keep_name(x)})
        dropped = sorted(x for x in c_headers | cu_headers
                         if not keep_name(x) and not x.startswith("_"))

        gcc_ver = tool_version([args.gcc, "-dumpfullversion"], r"(\d+(?:\.\d+)*)")
        nvcc_ver = tool_version([args.nvcc, "--version"], r"release [\d.]+, V([\d.]+)")
        clang_ver = tool_version([args.clang, "--version"], r"version (\d+(?:\.\d+)*)") \
            if use_clang else ""
        symbols, libs = library_symbols(args.gcc, args.nvcc)
        symbols -= set(idents)
        text = render(idents, headers, gcc_ver, nvcc_ver, clang_ver, method, c_inc, cu_inc,
                      symbols, libs)

        print("identifiers: %d (declarations %d, macros %d); header base names: %d "
              "(%d not identifiers, left out: %s)"
              % (len(idents), len({x for x in decls if keep_name(x)}),
                 len({x for x in macros if keep_name(x)}), len(headers), len(dropped),
                 " ".join(dropped)), file=sys.stderr)
        iset = set(idents)
        missing = [x for x in MUST_HAVE if x not in iset]
        if args.no_omp:
            missing = [x for x in missing if not x.startswith("omp_")]
        if missing:
            print("WARNING: expected names missing: %s" % " ".join(missing), file=sys.stderr)
        present = [x for x in SUSPECT if x in iset]
        if present:
            print("note: short/common names present (check they are real globals): %s"
                  % " ".join(present), file=sys.stderr)

        if args.check:
            old = open(args.output).read() if os.path.exists(args.output) else ""
            strip = lambda s: re.sub(r"\(declarations.*?\) on \S+:", "", s, flags=re.S)
            if strip(old) != strip(text):
                print("%s is out of date: rerun scripts/gen_reserved_names.py" % args.output,
                      file=sys.stderr)
                return 1
            print("%s is up to date" % args.output, file=sys.stderr)
            return 0
        with open(args.output, "w") as f:
            f.write(text)
        print("wrote %s" % args.output, file=sys.stderr)
        return 0
    finally:
        if args.keep_temp:
            print("temporary files kept in %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
