"""The edge-case (hypothesis, reference) pairs both metric recorders score: Lean and Unicode text, empty strings,
punctuation runs, HTML entities, line breaks, unusual whitespace, repeated n-grams and word order. Their indices
are part of the recorded fixtures (record_metric_expectations.py's SLICES), so new pairs go at the end.
"""

LEAN_REF = "theorem add_zero' (x : ℕ) : x + 0 = x := by simp"

PAIRS = [
    # (hypothesis, reference)
    ("∀ x : ℕ, x + 0 = x", "∀ x : ℕ, x + 0 = x"),
    ("theorem foo (x : ℕ) : x + 0 = x := by simp", LEAN_REF),
    ("theorem add_zero (n : nat) : n + 0 = n :=\nbegin\n  simp,\nend", "theorem add_zero (n : ℕ) : n + 0 = n :=\nbegin\n  induction n; simp *,\nend"),
    ("", "theorem t : 1 + 1 = 2 := rfl"),
    ("theorem t : 1 + 1 = 2 := rfl", ""),
    ("", ""),
    ("rfl", "theorem t : 1 + 1 = 2 := rfl"),
    ("by norm_num", "example : (2 : ℝ) ≤ 3 := by norm_num"),
    ("the the the the the the the", "the cat is on the mat"),
    ("a b c d a b c d a b c d", "a b c d e f"),
    ("!!!???...,,,;;;", "!?.,;"),
    ("x=y->z<=w>=v", "x = y -> z <= w >= v"),
    ("3.14 and 1,000 and 1-2 and a.b and a,b", "3.14 and 1,000 and 1 - 2 and a . b"),
    ("&quot;quoted&quot; &amp; &lt;tag&gt; <skipped>", '"quoted" & <tag>'),
    ("line-\nbreak\nand\ttab", "linebreak and tab"),
    ("a\u00a0b\u2003c\u3000d\u0085e\u001ff", "a b c d e f"),
    ("a\ufeffb c", "a b c"),
    ("ℕ ℤ ℚ ℝ ℂ → ↔ ∧ ∨ ¬ ∃ ∀ λ", "ℕ ℤ ℚ ℝ → ∧ ∃ λ"),
    ("⟨h₁, h₂⟩ ▸ h₃.symm", "⟨h₁, h₂⟩ ▸ h₃"),
    ("{x | x ∈ s} ∪ [1, 2] ++ `(term) ^ 2 \\ t ~ u", "{x | x ∈ s} ∪ [1, 2]"),
    ("Café naïve résumé 𝔸𝔹", "café naive resume 𝔸"),
    ("lemma foo : true := trivial", "lemma bar : false → true := λ h, trivial"),
    ("cat dog bird fish", "fish bird dog cat"),
    ("trailing spaces   \n\n", "trailing spaces"),
    ("one two three four five six seven eight nine ten", "one two three four"),
    ("one two three four", "one two three four five six seven eight nine ten"),
]
