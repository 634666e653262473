"""Optional offline embeddings (`pip install 'toolsel[embed]'`) for `semantic` and `fusion`."""
