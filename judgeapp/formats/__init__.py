"""Streaming, validated readers and writers for topics, documents, runs and qrels."""
