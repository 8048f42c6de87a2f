from sathub.cli import main

main()
