"""Rephrasing (paper §6.3): a dependent-ordering model, self-permutation and deletion of
constituents, with the punctuation written again from the underlying T′ (:mod:`.rephrase`)."""
