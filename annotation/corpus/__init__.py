"""The texts and the dataset: importing texts and annotations (text_import, interchange,
json_lines, csv_safety), de-duplication and consistency (duplicates, embeddings, consistency),
splits and dataset statistics."""
