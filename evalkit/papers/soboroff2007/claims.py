"""Soboroff (2007): the paper-versus-kit claims the notebook records. This paper has no computed findings text
(no ``..._markdown`` function): the notebook's sentences are written from the study's tables by
:mod:`evalkit.display.narrative`."""

from __future__ import annotations

from evalkit.papers.soboroff2007.experiment import Study

__all__ = ["claims"]


def claims(study: Study, dataset: str) -> list:
    """The paper-versus-kit lines the notebook records (:func:`evalkit.claims.grading_claims`)."""
    from evalkit.claims import Claim

    paper = "Soboroff 2007"
    s = study.sample.summary()
    f = study.figure1_summary.kit
    lg = study.logo_summary
    a = study.anova
    runs_sig = int(study.anova_runs.sample_significant.sum())
    n_runs = len(study.anova_runs)
    map_rank, inf_rank = lg.loc["MAP (pool)", "mean |rank change|"], lg.loc["infAP (sample)", "mean |rank change|"]
    map_score, inf_score = lg.loc["MAP (pool)", "mean |score change|"], lg.loc["infAP (sample)", "mean |score change|"]
    tau = f["Kendall's tau (MAP pool vs infAP sample)"]
    note_design = "different collection (TB06/GOV2 vs this one); the depth is capped where judgments end"
    return [
        Claim(paper, "sample depth per topic (min-max, mean)", "57-1252, mean 314",
              f"{s['depth_min']}-{s['depth_max']}, mean {s['depth_mean']:.0f} ({s['topics_capped']} of "
              f"{s['topics']} topics capped at {study.sample.params['max_depth']})", dataset, "", note_design),
        Claim(paper, "sample documents (relevant) a topic", "492 (36)",
              f"{s['docs_per_topic']:.0f} ({s['relevant_per_topic']:.1f})", dataset, "", note_design),
        Claim(paper, f"sampled beyond the phase-1 pool (depth {study.sample.params['phase1_depth']}; paper: 50): "
              "documents (relevant) a topic", "211 (14)",
              f"{s['beyond_pool_docs']:.0f} ({s['beyond_pool_relevant']:.1f})", dataset,
              "yes" if abs(s["beyond_pool_docs"] - 200) < 30 else "partly",
              "documents follow from the rate (200 / new documents); relevant ones depend on the collection"),
        Claim(paper, "topics with >= 1 (>= 20) new relevant", "46 (10) of 50",
              f"{s['topics_with_new_relevant']} ({s['topics_with_20_new_relevant']}) of {s['topics']}", dataset, ""),
        Claim(paper, "Kendall's tau, MAP (pool) vs infAP (sample)", "0.8",
              f"{tau:.3f}", dataset, "yes" if 0.7 <= tau <= 0.9 else "partly"),
        Claim(paper, "runs whose infAP is not lower than MAP", "4",
              f"{int(f['runs with infAP >= MAP'])} of {int(f['runs'])}", dataset,
              "yes" if f["runs with infAP >= MAP"] <= 0.1 * f["runs"] else "partly", kind="direction"),
        Claim(paper, "leave one group out: infAP ranks move less than MAP ranks, scores change similarly",
              "qualitative (table not in the text)",
              f"mean |rank change| MAP {map_rank:.2f}, infAP {inf_rank:.2f}; mean |score change| "
              f"MAP {map_score:.4f}, infAP {inf_score:.4f}", dataset,
              "yes" if inf_rank < 0.9 * map_rank else "partly" if inf_rank <= map_rank else "no", kind="direction"),
        Claim(paper, "ANOVA over the subsamples: sample effect (infAP ~ topic + sample, runs as replicates)",
              "not significant at 0.05", f"p = {a.sample_p:.3g} ({study.subsample_scores.shape[0]} subsamples)",
              dataset, "yes" if a.sample_p >= 0.05 else "no",
              "runs share each subsample's qrels, so they are not independent replicates", kind="direction"),
        Claim(paper, "ANOVA: sample effect tested against the topic x sample interaction", "not significant at 0.05",
              f"p = {a.sample_p_mixed:.3g}", dataset, "yes" if a.sample_p_mixed >= 0.05 else "no",
              "the kit's second reading (topics as a random effect)", kind="direction"),
        Claim(paper, "ANOVA: topics with a significant effect", "45 of 50",
              f"{a.topics_significant} of {len(a.topics)}", dataset, ""),
        Claim(paper, "per-run ANOVA: runs with a significant sample effect", "2 (p = 0.016, 0.014)",
              f"{runs_sig} of {n_runs} (about {0.05 * n_runs:.0f} expected by chance at 0.05)", dataset, ""),
        Claim(paper, "titlestat_rel: pool, sample, sample below rank 50", "0.93, 0.899, 0.851",
              "not computable: run files carry no document text", dataset, "",
              "titlestat() is provided over a caller-supplied text source"),
    ]
