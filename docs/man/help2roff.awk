# help2roff.awk — one `toytrans COMMAND --help` text as man(7) markup, for the man page
# (the Makefile's rule for build/FLAVOUR/toytrans.1; docs/man/toytrans.1.in).
#
#   ./toytrans translate --help | awk -f docs/man/help2roff.awk
#
# The help texts are laid out for an 80-column terminal, and some are wider; set as
# preformatted text under a man page's indentation they would run past the margin.
# So the text is re-flowed instead, by what its layout shows:
#   - "Usage: toytrans ..." lines become the subsection's synopsis, one line each (a
#     later "Usage:" line, a second way to use the command, likewise);
#   - text starting in column 0 is a paragraph, filled; a blank line ends it;
#   - a line indented by 2 or 4 blanks whose text has a gap of two or more blanks is a
#     tagged item (.TP): an option and its description, a warning and its meaning, an
#     exit code and what it means; the lines indented deeper that follow continue the
#     description, filled;
#   - "  -opt ARG" without a gap is an item whose description starts on the next line;
#   - "  - text" is a bullet (.IP);
#   - a continuation line that is itself a little table (a gap after its first words)
#     or is indented past the description's column, and a line indented under a
#     paragraph, keep their line breaks (.nf), so that examples stay as written.
# Backslashes become \e, hyphens \-, and a line never starts with a dot or a quote.

# esc(s): s as roff text.
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    if (s ~ /^[.']/) s = "\\&" s
    return s
}

# tag(s): an item's tag; words that start with '-' bold, their arguments italic.
function tag(s,    n, i, w, out) {
    if (s !~ /^-/) return esc(s)
    n = split(s, w, " ")
    out = ""
    for (i = 1; i <= n; i++) {
        if (w[i] ~ /^-/) out = out (i > 1 ? " " : "") "\\fB" esc(w[i]) "\\fR"
        else out = out (i > 1 ? " " : "") "\\fI" esc(w[i]) "\\fR"
    }
    return out
}

function indent_of(s) {
    match(s, /^ */)
    return RLENGTH
}

# nofill(line): one line kept as written; opens .nf once for a run of them.
function nofill(line) {
    if (!pre) { print ".nf"; pre = 1 }
    print esc(line)
}

function fill() {
    if (pre) { print ".fi"; pre = 0 }
}

# end_block(): closes an item or a paragraph indentation.
function end_block() {
    fill()
    if (rs) { print ".RE"; rs = 0 }
    item = 0
}

BEGIN { item = 0; pre = 0; rs = 0; para = 0; usage = !nousage }

# The synopsis: the first lines, up to the first blank one.
usage && /^$/ { usage = 0; para = 0; next }
usage {
    sub(/^Usage: */, "")
    sub(/^ */, "")
    if (NR > 1) print ".br"  # the subsection's heading starts the first
    first = $1 " " $2
    rest = $0
    sub(/^[^ ]+ +[^ ]+ */, "", rest)
    print "\\fB" esc(first) "\\fR" (rest == "" ? "" : " " esc(rest))
    next
}

/^$/ { end_block(); para = 0; next }

# A second synopsis further down (a command with two ways of use): set as the first.
/^Usage: / {
    end_block()
    sub(/^Usage: */, "")
    rest = $0
    sub(/^[^ ]+ +[^ ]+ */, "", rest)
    print ".PP"
    print "\\fB" esc($1 " " $2) "\\fR" (rest == "" ? "" : " " esc(rest))
    para = 1
    next
}

# Column 0: a paragraph.
/^[^ ]/ {
    if (item || pre) end_block()
    if (!para) { print ".PP"; para = 1 }
    print esc($0)
    next
}

{
    ind = indent_of($0)
    text = substr($0, ind + 1)
}

# A tagged item: indented 2 or 4, a gap between the tag and its description.
(ind == 2 || ind == 4) && (item == 0 || ind <= item_ind) && text ~ /[^ ]  +[^ ]/ {
    end_block()
    match(text, /  +/)
    t = substr(text, 1, RSTART - 1)
    d = substr(text, RSTART + RLENGTH)
    print ".TP"
    print tag(t)
    item = 1; item_ind = ind; desc_col = ind + RSTART + RLENGTH - 1; para = 1
    if (d ~ /[^ ]  +[^ ]/) nofill(d); else print esc(d)
    next
}

# An option whose description starts on the next line.
ind == 2 && text ~ /^-[^ ]/ && text !~ /^- / {
    end_block()
    print ".TP"
    print tag(text)
    item = 1; item_ind = ind; desc_col = -1; para = 1
    next
}

# A bullet.
ind == 2 && text ~ /^- / {
    end_block()
    print ".IP \\(bu 2"
    print esc(substr(text, 3))
    item = 1; item_ind = ind; desc_col = ind + 2; para = 1
    next
}

# The continuation of an item's description.
item && ind > item_ind {
    if (desc_col < 0) desc_col = ind
    if (ind > desc_col || text ~ /[^ ]  +[^ ]/) {
        nofill(substr($0, desc_col + 1))
    } else {
        fill()
        print esc(text)
    }
    next
}

# Indented 2 without a gap: a line of text of its own, such as a heading of options.
ind == 2 {
    end_block()
    print ".PP"
    print esc(text)
    para = 1
    next
}

# Indented under a paragraph: an example, kept as written.
{
    if (!rs) { print ".RS"; rs = 1 }
    nofill(text)
}

END { end_block() }
