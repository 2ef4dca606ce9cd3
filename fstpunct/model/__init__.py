"""Stage 4, the punctuation model: slots, lattices and trees in, probabilities and analyses out.

Vocabularies of punctemes and pairs, the Attach model's features and weights θ, the model
p(x | T) with its inference (:mod:`.punct`), EM training (:mod:`.train`; the M-step
:mod:`.mstep`), and model folders on disk (:mod:`.store`; the bundled models are data in
``fstpunct/models/``).
"""
