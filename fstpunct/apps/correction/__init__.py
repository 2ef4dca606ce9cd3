"""Punctuation correction of learner English (paper §6.2).

The learner's sentence x̄_e has a depunctuated tree T (gold, or a parser's) and surface
punctuation x_e. The correction model explains the corrected punctuation x_c as

    T_e′ = argmax p(T_e′ | T, x_e)             under a punctuation model of the learners' text
    p(x_c | T, T_e′) = Σ_{T_c′} Π_w p(l, r | w, T_e′) · Π_i p_φ(x_c,i | u_i(T_c′))

where the Attach model of T_c′ also sees the learner's puncteme pair at the node (context
features ``xl=``, ``xr=``, ``xp=``) and the channel φ is estimated with a Dirichlet prior
centred on the channel of correct English (:mod:`.model`). Corrections are chosen like
restorations: samples from p(T_c′, x_c | T, T_e′) and the minimum-Bayes-risk decoder of
:mod:`fstpunct.apps.restoration.mbr` (:mod:`.correct`), with a decoding (an edit cost in
the MBR loss, the support below which the learner's string is kept) chosen on dev
(:mod:`.calibrate`).
"""
