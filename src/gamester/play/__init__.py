"""Interfaces for people: the command line and terminal play."""
