"""Stage 6, applications of a trained model: CoNLL-U sentences in, annotated sentences out.

Decoding the underlying punctuation, restoration (``restoration/``), correction of learners'
punctuation (``correction/``), rephrasing (``rephrase/``), normalisation (Tse & Curran), the
constraint on parsing (Jones), and learned rules against a grammar. Each module reads like the
paper's section.
"""
