//! Browser runners: launch a browser with an isolated profile and load unpacked extensions.
