"""End-to-end tests in a real browser: JupyterLab driven by Playwright in Debian's chromium."""
