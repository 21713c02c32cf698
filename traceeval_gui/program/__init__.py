"""The panels that show the selected program: source files, the edge table, the model comparison and the
model's answer with its prompt and questions."""
