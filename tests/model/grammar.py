"""llama.cpp's own grammar engine, driven directly: does it parse a grammar, does it accept a text?

`llama_sampler_init_grammar` is the parser the server uses (it returns NULL on a
grammar it cannot parse); acceptance feeds the text's tokens one by one through
the grammar sampler and checks none is masked out and that the end of text is
allowed. Only the model's vocabulary is loaded.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any


class GrammarEngine:
    def __init__(self, gguf: Path) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self._llm = llama_cpp.Llama(str(gguf), vocab_only=True, verbose=False)
        self._vocab = llama_cpp.llama_model_get_vocab(self._llm._model.model)

    def _sampler(self, grammar: str) -> Any:
        return self._lib.llama_sampler_init_grammar(self._vocab, grammar.encode(), b"root")

    def parses(self, grammar: str) -> bool:
        sampler = self._sampler(grammar)
        if not sampler:
            return False
        self._lib.llama_sampler_free(sampler)
        return True

    def _allowed(self, sampler: Any, token: int) -> bool:
        data = (self._lib.llama_token_data * 1)()
        data[0].id, data[0].logit, data[0].p = token, 0.0, 0.0
        array = self._lib.llama_token_data_array(data=data, size=1, selected=-1, sorted=False)
        self._lib.llama_sampler_apply(sampler, ctypes.byref(array))
        return bool(data[0].logit != float("-inf"))

    def accepts(self, grammar: str, text: str) -> bool:
        sampler = self._sampler(grammar)
        assert sampler, "grammar did not parse"
        try:
            for token in self._llm.tokenize(text.encode(), add_bos=False, special=False):
                if not self._allowed(sampler, token):
                    return False
                self._lib.llama_sampler_accept(sampler, token)
            return self._allowed(sampler, self._lib.llama_vocab_eos(self._vocab))
        finally:
            self._lib.llama_sampler_free(sampler)
