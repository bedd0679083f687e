"""Mining many recorded runs with Spark: rows, coverage, the job, the cluster, the HTML page."""
