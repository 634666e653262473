from toolsel.cli import main

main()
