"""The glossary every notebook links to (issue 28.5): one source for the tour's glossary cell and the terms test.

:data:`GLOSSARY` maps each term to a one-sentence definition; :data:`WHERE` says which notebooks use it;
:data:`USES` gives the pattern that finds a use of the term in a notebook's Markdown (its plural, its notation:
``γ`` and ``\\gamma``, ``R̂`` and ``\\hat R``). :func:`markdown` renders the glossary cell of ``00_tour.ipynb``, which
holds exactly that text (``tests/test_classroom_terms.py`` checks it; :func:`write_into_tour` rewrites it after
a change here). It is a Markdown cell, not a code cell's output, because other notebooks link to it
(``[infAP](00_tour.ipynb#glossary)``) and a reader who follows the link before running the tour must find it.

The rule the test applies to every notebook: a term's first use is in a cell that defines it (``**term**``) or
links to the glossary (``00_tour.ipynb#glossary``; ``#glossary`` in the tour itself), never before either.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

__all__ = ["GLOSSARY", "WHERE", "USES", "ANCHOR", "HEADING", "markdown", "use_pattern", "first_uses",
           "write_into_tour"]

ANCHOR = "glossary"
HEADING = f'## Glossary<a id="{ANCHOR}"></a>'

#: term -> one sentence
GLOSSARY: dict[str, str] = {
    "qrels": "The relevance judgments: topic, document and grade (0 not relevant, 1 or more relevant).",
    "pool": "The union of the top k documents of the runs that built it (a depth-k pool): what assessors judge.",
    "judged run": "A run that contributed documents to the pool (a contributing run); the other runs are scored "
                  "with judgments they did not help build.",
    "judged depth": "How deep the pools were judged (TREC-8: 100); below it the qrels know nothing.",
    "R̂": "R is the number of relevant documents of a topic; R̂ is its estimate from a sample.",
    "stratum": "A range of pool ranks sampled at one rate: `[1-10]@1` judges ranks 1-10 completely, "
               "`[11-100]@0.1` a 10% sample of ranks 11-100.",
    "infAP": "Average precision inferred from a uniform random sample of the pool: each judged document stands for "
             "the unsampled ones around it (Yilmaz & Aslam 2006).",
    "xinfAP": "infAP extended to stratified samples: each stratum's judged documents stand for that stratum's "
              "unsampled ones (Yilmaz et al. 2008).",
    "infNDCG": "nDCG inferred from a stratified sample: the gains and the ideal ranking estimated stratum by "
               "stratum (Yilmaz et al. 2008).",
    "infP@k": "Precision at rank k inferred from a sample: the share of relevant documents among the judged ones "
              "of the top k, estimated stratum by stratum.",
    "bpref": "Buckley & Voorhees (2004): counts the judged nonrelevant documents ranked above each relevant one "
             "and ignores unjudged documents.",
    "RBP": "Rank-biased precision: a user reads on from rank j to j + 1 with probability p, so rank j weighs "
           "(1 − p)p^(j−1); the unjudged ranks' weight is its residual.",
    "Acc%": "Lu et al. (2017): the share of (run, topic) estimates inside the interval the complete judgments "
            "allow, [M, M + residual].",
    "γ": "Chao and Lee's coefficient of variation of how often the pooled relevant documents were found: a high γ "
         "means many relevant documents are still missing.",
    "Kendall's τ": "The agreement of two rankings of the systems, from 1 (identical) to −1 (reversed); τ ≥ 0.9 "
                   "is the usual line for 'equivalent'.",
    "EMAP": "Expected MAP: MAP when each unjudged document counts as relevant with its estimated probability "
            "(Carterette 2007).",
    "MTC": "Minimal test collections (Carterette 2007): judge next the document that most changes the "
           "confidence in ΔMAP between the runs compared.",
    "RTC": "Robust test collections (Carterette 2007): MTC's judgments plus a model that gives every unjudged "
           "document a probability of relevance, so confidence extends to other runs.",
    "W̄": "Carterette's bookmaker score: mean winnings from betting on each confident prediction at the odds it "
          "claims; 0 when the confidence is honest.",
    "titlestat": "Buckley et al.: the share of a document set containing the topic's title words (are the judged "
                 "documents all alike?).",
}

#: term -> the notebooks that use it (the glossary's "where" column)
WHERE: dict[str, str] = {
    "qrels": "all", "pool": "all", "judged run": "all", "judged depth": "all", "R̂": "01 Yilmaz, 03 Voorhees",
    "stratum": "01 Yilmaz, 03 Voorhees", "infAP": "01 Yilmaz (explains it), 02, 03, 04",
    "xinfAP": "01 Yilmaz (explains it), 03", "infNDCG": "01 Yilmaz (explains it), 03", "infP@k": "03 Voorhees",
    "bpref": "this tour", "RBP": "04 Lu", "Acc%": "04 Lu", "γ": "04 Lu", "Kendall's τ": "all",
    "EMAP": "05 Carterette", "MTC": "05 Carterette", "RTC": "05 Carterette", "W̄": "05 Carterette",
    "titlestat": "02 Soboroff",
}

#: term -> regular expression finding a use of it in Markdown (case-sensitive)
USES: dict[str, str] = {
    "qrels": r"\bqrels\b",
    "pool": r"\bpool(?:s|ed|ing)?\b",
    "judged run": r"\b(?:judged|contributing) runs?\b",
    "judged depth": r"\bjudged depth\b",
    "R̂": r"R̂|\\hat\s*\{?R\}?|\bR-hat\b",
    "stratum": r"\bstrat(?:um|a)\b|\[\d+-\d+\]@",
    "infAP": r"(?<![x\w])infAP\b",
    "xinfAP": r"\bxinfAP\b",
    "infNDCG": r"\binfNDCG\b",
    "infP@k": r"\binfP(?:@k|@\d+|\(\d+\))",
    "bpref": r"\b[Bb]pref\b",
    "RBP": r"\bRBP",
    "Acc%": r"\bAcc%",
    "γ": r"γ|\\gamma\b|\bgamma\b",
    "Kendall's τ": r"\bKendall|τ|\\tau\b",
    "EMAP": r"\bEMAP\b",
    "MTC": r"\bMTC\b",
    "RTC": r"\bRTC\b",
    "W̄": r"W̄|\\bar\s*\{?W\}?|\bW-bar\b",
    "titlestat": r"\btitlestat",
}


def use_pattern(term: str) -> re.Pattern:
    return re.compile(USES[term])


_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


def _defines(source: str, term: str) -> bool:
    """Whether a bold span (``**...**``) of ``source`` holds a use of the term: the cell defines it."""
    pattern = use_pattern(term)
    return any(pattern.search(span) for span in _BOLD.findall(source))


def markdown() -> str:
    """The tour's glossary cell: the heading with its anchor, and one row per term."""
    rows = [HEADING, "", "| term | meaning | where |", "|---|---|---|"]
    for term, sentence in GLOSSARY.items():
        rows.append(f"| **{term}** | {sentence} | {WHERE[term]} |")
    return "\n".join(rows)


def _markdown_cells(path: Path) -> list[str]:
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells if c["cell_type"] == "markdown"]


def first_uses(path: str | os.PathLike) -> dict[str, tuple[int, bool, str]]:
    """For each glossary term the notebook's Markdown uses: (index among its Markdown cells of the first use,
    whether that cell defines the term or links to the glossary, the cell's first line)."""
    link = "#glossary"
    found = {}
    for index, source in enumerate(_markdown_cells(Path(path))):
        for term in GLOSSARY:
            if term in found or not use_pattern(term).search(source):
                continue
            ok = link in source or _defines(source, term)
            found[term] = (index, ok, source.strip().split("\n", 1)[0][:80])
    return found


def write_into_tour(path: str | os.PathLike) -> bool:
    """Rewrite the glossary cell of the tour notebook at ``path`` (the Markdown cell starting with
    :data:`HEADING`'s ``## Glossary``) from :func:`markdown`, keeping whatever follows the table in that cell.
    Returns whether the file changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown" and source.startswith("## Glossary"):
            lines = source.split("\n")
            end = 1
            while end < len(lines) and (not lines[end].strip() or lines[end].startswith("|")):
                end += 1
            rest = "\n".join(lines[end:])
            new = markdown() + ("\n\n" + rest if rest.strip() else "")
            cell["source"] = new.splitlines(keepends=True)
            break
    else:
        raise ValueError(f"{path}: no Markdown cell starting with '## Glossary'")
    new_text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if new_text == text:
        return False
    path.write_text(new_text, encoding="utf-8")
    return True
