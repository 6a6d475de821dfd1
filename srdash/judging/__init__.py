"""From a competition to its verdict: rules, the ranking kernel, qualification, properties, the real-world track."""
